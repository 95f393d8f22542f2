"""``tf.estimator``: Estimator, RunConfig from TF_CONFIG, train_and_evaluate; ``tf.metrics``."""

from tensorfleet.estimator import metrics  # noqa: F401
from tensorfleet.estimator.estimator import Estimator, EstimatorSpec, ModeKeys  # noqa: F401
from tensorfleet.estimator.run_config import RunConfig, TaskType  # noqa: F401
from tensorfleet.estimator.training import EvalSpec, TrainSpec, train_and_evaluate  # noqa: F401
from tensorfleet.estimator import export, inputs  # noqa: F401,E402
from tensorfleet.estimator.exporter import (  # noqa: F401,E402
    BestExporter, Exporter, FinalExporter, LatestExporter)
from tensorfleet.estimator.warm_starting import VocabInfo, WarmStartSettings  # noqa: F401,E402
from tensorfleet.estimator.canned import (  # noqa: F401,E402
    DNNClassifier, DNNLinearCombinedClassifier, DNNLinearCombinedRegressor, DNNRegressor,
    LinearClassifier, LinearRegressor)
from tensorfleet.estimator.canned import (  # noqa: F401,E402
    BaselineClassifier, BaselineRegressor)

__all__ = ["Estimator", "EstimatorSpec", "ModeKeys", "RunConfig", "TaskType", "TrainSpec",
           "EvalSpec", "train_and_evaluate", "metrics"]
