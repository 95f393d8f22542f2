"""``tf.contrib``: the contrib modules TensorFlow 1.x programs use, one module each."""

from tensorfleet.contrib import framework, layers, training  # noqa: F401
from tensorfleet.contrib import legacy_seq2seq, rnn, seq2seq  # noqa: F401,E402
from tensorfleet.contrib import lookup  # noqa: F401,E402  (tf.contrib.lookup)
from tensorfleet.contrib import deprecated, learn, losses, metrics, slim  # noqa: F401,E402
from tensorfleet.contrib import opt  # noqa: F401,E402  (tf.contrib.opt)
from tensorfleet import dynamic_embedding  # noqa: F401,E402  (tf.contrib.dynamic_embedding)

__all__ = ["framework", "layers", "training"]
__all__ += ["legacy_seq2seq", "rnn", "seq2seq"]
__all__ += ["lookup"]
__all__ += ["deprecated", "learn", "losses", "metrics", "slim"]
__all__ += ["opt"]
__all__ += ["dynamic_embedding"]
