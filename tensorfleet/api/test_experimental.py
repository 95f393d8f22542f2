"""``tf.test.experimental``."""

from tensorfleet.testing.platform_queries import sync_devices

__all__ = ["sync_devices"]
