"""``tf.saved_model.tag_constants``: the tags that name a meta graph of a SavedModel."""

SERVING = "serve"
TRAINING = "train"
EVAL = "eval"
GPU = "gpu"
TPU = "tpu"

__all__ = ["SERVING", "TRAINING", "EVAL", "GPU", "TPU"]
