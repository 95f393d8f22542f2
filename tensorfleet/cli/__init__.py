"""The ``tensorfleet`` command line: ``launch``, ``server``, ``status``, ``demo``, ``k8s``."""

from tensorfleet.cli.main import build_parser, main  # noqa: F401

__all__ = ["main", "build_parser"]
