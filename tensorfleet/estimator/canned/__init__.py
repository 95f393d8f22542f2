"""Canned estimators: linear, DNN and wide & deep models over feature columns."""

from tensorfleet.estimator.canned.dnn import DNNClassifier, DNNRegressor  # noqa: F401
from tensorfleet.estimator.canned.dnn_linear_combined import (  # noqa: F401
    DNNLinearCombinedClassifier, DNNLinearCombinedRegressor)
from tensorfleet.estimator.canned.head import (  # noqa: F401
    BinaryClassHead, MultiClassHead, RegressionHead)
from tensorfleet.estimator.canned.linear import LinearClassifier, LinearRegressor  # noqa: F401
from tensorfleet.estimator.canned.baseline import (  # noqa: F401,E402
    BaselineClassifier, BaselineRegressor)

__all__ = ["DNNClassifier", "DNNRegressor", "DNNLinearCombinedClassifier",
           "DNNLinearCombinedRegressor", "LinearClassifier", "LinearRegressor",
           "BinaryClassHead", "MultiClassHead", "RegressionHead"]
__all__ += ["BaselineClassifier", "BaselineRegressor"]
