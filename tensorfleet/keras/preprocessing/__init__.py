"""The Keras preprocessing utilities (images, sequences, text); the public namespaces are
declared in ``tensorfleet/api/keras_preprocessing*.py``."""
