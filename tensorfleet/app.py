"""``tf.app``: ``run`` and ``flags``, as in TensorFlow 1.x programs."""

import sys
from typing import Any, Callable, List, Optional


def run(main: Optional[Callable[[List[str]], Any]] = None,
        argv: Optional[List[str]] = None) -> None:
    """Calls ``main(argv)`` and exits with its return value."""
    if main is None:
        main = sys.modules["__main__"].main  # type: ignore[attr-defined]
    sys.exit(main(list(argv if argv is not None else sys.argv)))
