"""``tf.estimator.export``: serving input receivers and export outputs."""

from tensorfleet.estimator.export.export_lib import (  # noqa: F401
    ServingInputReceiver, build_parsing_serving_input_receiver_fn,
    build_raw_serving_input_receiver_fn)
from tensorfleet.estimator.export.export_output import (  # noqa: F401
    ClassificationOutput, ExportOutput, PredictOutput, RegressionOutput)

__all__ = ["ServingInputReceiver", "build_parsing_serving_input_receiver_fn",
           "build_raw_serving_input_receiver_fn", "ClassificationOutput", "ExportOutput",
           "PredictOutput", "RegressionOutput"]
