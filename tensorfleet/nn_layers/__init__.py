"""The implementation of ``tf.layers``: layer objects (``objects``) and the functional
layers built on ``get_variable`` (``functional``). ``tensorfleet/api/layers.py`` declares the
namespace."""
