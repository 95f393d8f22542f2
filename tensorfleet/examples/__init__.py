"""``tensorfleet.examples``: the helper modules of TensorFlow 1.x tutorials."""
