"""``tf.keras.layers``: the Keras layers, in TF 1.x graph mode."""

from tensorfleet.keras.layers.base import Input, InputLayer, Layer  # noqa: F401
from tensorfleet.keras.layers.core import *  # noqa: F401,F403
from tensorfleet.keras.layers.conv import *  # noqa: F401,F403
from tensorfleet.keras.layers.rnn import *  # noqa: F401,F403
from tensorfleet.keras.layers.activation_layers import *  # noqa: F401,F403
from tensorfleet.keras.layers.attention import *  # noqa: F401,F403
from tensorfleet.keras.layers.conv_lstm import *  # noqa: F401,F403
from tensorfleet.keras.layers.conv_variants import *  # noqa: F401,F403
from tensorfleet.keras.layers.cudnn_rnn import *  # noqa: F401,F403
from tensorfleet.keras.layers.einsum_dense import *  # noqa: F401,F403
from tensorfleet.keras.layers.input_spec import InputSpec  # noqa: F401
from tensorfleet.keras.layers.layer_utils import (  # noqa: F401
    DenseFeatures, Wrapper, disable_v2_dtype_behavior, enable_v2_dtype_behavior)
from tensorfleet.keras.layers.locally_connected import *  # noqa: F401,F403
from tensorfleet.keras.layers.noise import *  # noqa: F401,F403
from tensorfleet.keras.layers.normalization import *  # noqa: F401,F403
from tensorfleet.keras.layers.passthrough import *  # noqa: F401,F403
from tensorfleet.keras.layers.pooling3d import *  # noqa: F401,F403
from tensorfleet.keras.layers.preprocessing import (  # noqa: F401
    CategoryEncoding, CenterCrop, Discretization, Hashing, Normalization, Rescaling, Resizing)
from tensorfleet.keras.layers.reshaping import *  # noqa: F401,F403
from tensorfleet.keras.layers.rnn_cells import *  # noqa: F401,F403
from tensorfleet.keras.layers import experimental  # noqa: F401
from tensorfleet.keras.model_config import deserialize, serialize  # noqa: F401
from tensorfleet.keras.layers.conv import (  # noqa: F401  (the short Keras aliases)
    AveragePooling1D as AvgPool1D, AveragePooling2D as AvgPool2D,
    Conv1D as Convolution1D, Conv2D as Convolution2D,
    Conv2DTranspose as Convolution2DTranspose, GlobalAveragePooling1D as GlobalAvgPool1D,
    GlobalAveragePooling2D as GlobalAvgPool2D, GlobalMaxPooling1D as GlobalMaxPool1D,
    GlobalMaxPooling2D as GlobalMaxPool2D, MaxPooling1D as MaxPool1D,
    MaxPooling2D as MaxPool2D, SeparableConv2D as SeparableConvolution2D)
from tensorfleet.keras.layers.conv_variants import (  # noqa: F401
    Conv1DTranspose as Convolution1DTranspose, Conv3D as Convolution3D,
    Conv3DTranspose as Convolution3DTranspose, SeparableConv1D as SeparableConvolution1D)
from tensorfleet.keras.layers.pooling3d import (  # noqa: F401
    AveragePooling3D as AvgPool3D, GlobalAveragePooling3D as GlobalAvgPool3D,
    GlobalMaxPooling3D as GlobalMaxPool3D, MaxPooling3D as MaxPool3D)
