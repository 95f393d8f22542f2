"""The Keras application models (``tf.keras.applications``): the published ImageNet
architectures built from Keras layers, their input preprocessing and prediction decoding.
The public namespaces are declared in ``tensorfleet/api/keras_applications*.py``."""
