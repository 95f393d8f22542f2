"""What TensorFlow keeps in its ``platform`` and ``lib.io`` packages: files (``gfile``),
logging (``tf_logging``, and ``logs``, the knob for tensorfleet's own log output), command-line
flags and ``app.run``, and TFRecord files (``tf_record``)."""
