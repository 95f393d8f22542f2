"""``tensorfleet.examples.tutorials``: tutorial input helpers (MNIST)."""
