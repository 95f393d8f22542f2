"""``tf.saved_model.constants``: the file, directory and collection names of a SavedModel in
TensorFlow's layout, the layout ``SavedModelBuilder`` writes beside tensorfleet's own files
(``tensorflow_layout``), so code that joins these names to an export directory finds the
files there."""

from tensorfleet.saved_model.tensorflow_layout import MAIN_OP_KEY, SAVED_MODEL_PB, SAVED_MODEL_PBTXT

ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
LEGACY_INIT_OP_KEY = "legacy_init_op"
SAVED_MODEL_FILENAME_PB = SAVED_MODEL_PB
SAVED_MODEL_FILENAME_PBTXT = SAVED_MODEL_PBTXT
# The SavedModel message's schema version that TensorFlow's loader accepts.
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY = "variables"
# The checkpoint prefix inside VARIABLES_DIRECTORY (``variables/variables.index`` ...).
VARIABLES_FILENAME = "variables"

__all__ = ["ASSETS_DIRECTORY", "ASSETS_KEY", "DEBUG_DIRECTORY", "DEBUG_INFO_FILENAME_PB",
           "LEGACY_INIT_OP_KEY", "MAIN_OP_KEY", "SAVED_MODEL_FILENAME_PB",
           "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION", "VARIABLES_DIRECTORY",
           "VARIABLES_FILENAME"]
