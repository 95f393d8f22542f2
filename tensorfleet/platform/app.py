"""``tf.app``: ``run`` and ``flags``, as in TensorFlow 1.x programs."""

import sys
from typing import Any, Callable, List, Optional

from tensorfleet.platform import flags


def run(main: Optional[Callable[[List[str]], Any]] = None,
        argv: Optional[List[str]] = None) -> None:
    """Parses the flags defined with ``tf.app.flags`` out of ``argv`` (default
    ``sys.argv``), calls ``main`` with the rest (program name first) and exits with
    its return value."""
    if main is None:
        main = sys.modules["__main__"].main  # type: ignore[attr-defined]
    sys.exit(main(flags.parse_known(argv)))


__all__ = ["run", "flags"]
