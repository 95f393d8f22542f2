"""``from tensorfleet.examples.tutorials.mnist import input_data`` (and ``mnist``, the
tutorials' two-hidden-layer model)."""

from tensorfleet.examples.tutorials.mnist import input_data, mnist  # noqa: F401
