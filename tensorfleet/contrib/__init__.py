"""``tf.contrib``: the contrib modules TensorFlow 1.x programs use, one module each."""

from tensorfleet.contrib import framework, layers, training  # noqa: F401
from tensorfleet.contrib import legacy_seq2seq, rnn, seq2seq  # noqa: F401,E402
from tensorfleet.contrib import lookup  # noqa: F401,E402  (tf.contrib.lookup)
from tensorfleet.contrib import deprecated, learn, losses, metrics, slim  # noqa: F401,E402
from tensorfleet.contrib import opt  # noqa: F401,E402  (tf.contrib.opt)
from tensorfleet import dynamic_embedding  # noqa: F401,E402  (tf.contrib.dynamic_embedding)
from tensorfleet.contrib import crf  # noqa: F401,E402  (tf.contrib.crf)
from tensorfleet.contrib import image  # noqa: F401,E402  (tf.contrib.image)
from tensorfleet.contrib import data  # noqa: F401,E402  (tf.contrib.data)
from tensorfleet.contrib import tensorboard  # noqa: F401,E402  (tf.contrib.tensorboard)
from tensorfleet.contrib import cudnn_rnn  # noqa: F401,E402  (tf.contrib.cudnn_rnn)
from tensorfleet.contrib import quantize  # noqa: F401,E402  (tf.contrib.quantize)
from tensorfleet.contrib import feature_column  # noqa: F401,E402  (tf.contrib.feature_column)
from tensorfleet.contrib import module_paths as _module_paths  # noqa: F401,E402  (.python.layers)

__all__ = ["framework", "layers", "training"]
__all__ += ["legacy_seq2seq", "rnn", "seq2seq"]
__all__ += ["lookup"]
__all__ += ["deprecated", "learn", "losses", "metrics", "slim"]
__all__ += ["opt"]
__all__ += ["dynamic_embedding"]
__all__ += ["crf"]
__all__ += ["image"]
__all__ += ["cudnn_rnn", "quantize"]
__all__ += ["feature_column"]
