"""``tf.contrib.learn``: the mode names that TF 1.x model functions compare against,
``RunConfig`` (the estimator's), ``Experiment`` and ``learn_runner``."""

from tensorfleet.estimator.run_config import RunConfig  # noqa: F401
from tensorfleet.contrib.learn_experiment import Experiment, learn_runner  # noqa: F401


class ModeKeys:
    """What a model function is asked to build: ``TRAIN``, ``EVAL`` or ``INFER``.

    The values equal those of ``tf.estimator.ModeKeys`` (whose ``PREDICT`` is ``INFER``
    here), so code mixing the two compares correctly.
    """

    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"


__all__ = ["ModeKeys", "RunConfig", "Experiment", "learn_runner"]
