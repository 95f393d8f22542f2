"""The ``tensorfleet`` command line: ``launch``, ``server``, ``status``, ``demo``, ``k8s``.

The entry point is ``tensorfleet.cli.main:main``. It is not imported here, so that
``python -m tensorfleet.cli.main`` runs the module once, without a warning.
"""
