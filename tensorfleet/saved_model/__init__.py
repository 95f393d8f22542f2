"""``tf.saved_model``: export a graph with its variables and signatures, load it back.

The on-disk format is tensorfleet's own (see ``builder.py``): the graph as plain
data, the variables as safetensors, the signatures as JSON.
"""

from tensorfleet.saved_model import (  # noqa: F401
    builder, loader, signature_constants, signature_def_utils, tag_constants, utils)
from tensorfleet.saved_model.builder import SavedModelBuilder  # noqa: F401
from tensorfleet.saved_model.builder import SavedModelBuilder as Builder  # noqa: F401
from tensorfleet.saved_model.loader import (  # noqa: F401
    load, maybe_saved_model_directory, simple_save)
from tensorfleet.saved_model.signature import (  # noqa: F401
    SignatureDef, TensorInfo, build_signature_def, build_tensor_info,
    classification_signature_def, is_valid_signature, predict_signature_def,
    regression_signature_def)
from tensorfleet.saved_model.signature_constants import (  # noqa: F401
    CLASSIFY_INPUTS, CLASSIFY_METHOD_NAME, CLASSIFY_OUTPUT_CLASSES, CLASSIFY_OUTPUT_SCORES,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY, PREDICT_INPUTS, PREDICT_METHOD_NAME, PREDICT_OUTPUTS,
    REGRESS_INPUTS, REGRESS_METHOD_NAME, REGRESS_OUTPUTS)
from tensorfleet.saved_model.tag_constants import EVAL, GPU, SERVING, TPU, TRAINING  # noqa: F401
from tensorfleet.saved_model import main_op  # noqa: F401,E402  (tf.saved_model.main_op)
from tensorfleet.saved_model.main_op import (  # noqa: F401,E402
    get_tensor_from_tensor_info, main_op_with_restore)
from tensorfleet.saved_model.loader import (  # noqa: F401,E402
    maybe_saved_model_directory as contains_saved_model)

__all__ = ["builder", "loader", "signature_constants", "signature_def_utils", "tag_constants",
           "utils", "SavedModelBuilder", "Builder", "load", "maybe_saved_model_directory",
           "simple_save", "SignatureDef", "TensorInfo", "build_signature_def",
           "build_tensor_info", "classification_signature_def", "is_valid_signature",
           "predict_signature_def", "regression_signature_def", "SERVING", "TRAINING", "EVAL",
           "GPU", "TPU", "DEFAULT_SERVING_SIGNATURE_DEF_KEY"]
from tensorfleet.saved_model import constants  # noqa: F401,E402  (tf.saved_model.constants)
from tensorfleet.saved_model.constants import (  # noqa: F401,E402
    ASSETS_DIRECTORY, ASSETS_KEY, DEBUG_DIRECTORY, DEBUG_INFO_FILENAME_PB, LEGACY_INIT_OP_KEY,
    MAIN_OP_KEY, SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT,
    SAVED_MODEL_SCHEMA_VERSION, VARIABLES_DIRECTORY, VARIABLES_FILENAME)

__all__ += ["constants"] + constants.__all__
__all__ += ["main_op", "main_op_with_restore", "get_tensor_from_tensor_info",
            "contains_saved_model"]
