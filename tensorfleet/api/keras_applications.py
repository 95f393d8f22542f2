"""``tf.keras.applications``: the Keras ImageNet models (architectures built with
``weights=None``, or the published weights read from the Keras cache) and their modules."""

from tensorfleet.keras.applications.convnext import (ConvNeXtBase, ConvNeXtLarge,
    ConvNeXtSmall, ConvNeXtTiny, ConvNeXtXLarge)
from tensorfleet.keras.applications.densenet import (DenseNet121, DenseNet169, DenseNet201)
from tensorfleet.keras.applications.efficientnet import (EfficientNetB0, EfficientNetB1,
    EfficientNetB2, EfficientNetB3, EfficientNetB4, EfficientNetB5, EfficientNetB6,
    EfficientNetB7)
from tensorfleet.keras.applications.efficientnetv2 import (EfficientNetV2B0, EfficientNetV2B1,
    EfficientNetV2B2, EfficientNetV2B3, EfficientNetV2L, EfficientNetV2M, EfficientNetV2S)
from tensorfleet.keras.applications.inception_resnet import (InceptionResNetV2)
from tensorfleet.keras.applications.inceptionv3 import (InceptionV3)
from tensorfleet.keras.applications.mobilenet import (MobileNet)
from tensorfleet.keras.applications.mobilenetv2 import (MobileNetV2)
from tensorfleet.keras.applications.mobilenetv3 import (MobileNetV3Large, MobileNetV3Small)
from tensorfleet.keras.applications.nasnet import (NASNetLarge, NASNetMobile)
from tensorfleet.keras.applications.regnet import (RegNetX002, RegNetX004, RegNetX006,
    RegNetX008, RegNetX016, RegNetX032, RegNetX040, RegNetX064, RegNetX080, RegNetX120,
    RegNetX160, RegNetX320, RegNetY002, RegNetY004, RegNetY006, RegNetY008, RegNetY016,
    RegNetY032, RegNetY040, RegNetY064, RegNetY080, RegNetY120, RegNetY160, RegNetY320)
from tensorfleet.keras.applications.resnet import (ResNet101, ResNet152, ResNet50)
from tensorfleet.keras.applications.resnet_rs import (ResNetRS101, ResNetRS152, ResNetRS200,
    ResNetRS270, ResNetRS350, ResNetRS420, ResNetRS50)
from tensorfleet.keras.applications.resnetv2 import (ResNet101V2, ResNet152V2, ResNet50V2)
from tensorfleet.keras.applications.vgg import (VGG16, VGG19)
from tensorfleet.keras.applications.xception import (Xception)

from tensorfleet.api import keras_applications_convnext as convnext
from tensorfleet.api import keras_applications_densenet as densenet
from tensorfleet.api import keras_applications_efficientnet as efficientnet
from tensorfleet.api import keras_applications_efficientnet_v2 as efficientnet_v2
from tensorfleet.api import keras_applications_imagenet_utils as imagenet_utils
from tensorfleet.api import keras_applications_inception_resnet_v2 as inception_resnet_v2
from tensorfleet.api import keras_applications_inception_v3 as inception_v3
from tensorfleet.api import keras_applications_mobilenet as mobilenet
from tensorfleet.api import keras_applications_mobilenet_v2 as mobilenet_v2
from tensorfleet.api import keras_applications_mobilenet_v3 as mobilenet_v3
from tensorfleet.api import keras_applications_nasnet as nasnet
from tensorfleet.api import keras_applications_regnet as regnet
from tensorfleet.api import keras_applications_resnet as resnet
from tensorfleet.api import keras_applications_resnet50 as resnet50
from tensorfleet.api import keras_applications_resnet_rs as resnet_rs
from tensorfleet.api import keras_applications_resnet_v2 as resnet_v2
from tensorfleet.api import keras_applications_vgg16 as vgg16
from tensorfleet.api import keras_applications_vgg19 as vgg19
from tensorfleet.api import keras_applications_xception as xception

__all__ = ["convnext", "ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtSmall", "ConvNeXtTiny",
           "ConvNeXtXLarge", "densenet", "DenseNet121", "DenseNet169", "DenseNet201",
           "efficientnet", "efficientnet_v2", "EfficientNetB0", "EfficientNetB1",
           "EfficientNetB2", "EfficientNetB3", "EfficientNetB4", "EfficientNetB5",
           "EfficientNetB6", "EfficientNetB7", "EfficientNetV2B0", "EfficientNetV2B1",
           "EfficientNetV2B2", "EfficientNetV2B3", "EfficientNetV2L", "EfficientNetV2M",
           "EfficientNetV2S", "imagenet_utils", "inception_resnet_v2", "inception_v3",
           "InceptionResNetV2", "InceptionV3", "MobileNet", "mobilenet", "mobilenet_v2",
           "mobilenet_v3", "MobileNetV2", "MobileNetV3Large", "MobileNetV3Small", "nasnet",
           "NASNetLarge", "NASNetMobile", "regnet", "RegNetX002", "RegNetX004", "RegNetX006",
           "RegNetX008", "RegNetX016", "RegNetX032", "RegNetX040", "RegNetX064", "RegNetX080",
           "RegNetX120", "RegNetX160", "RegNetX320", "RegNetY002", "RegNetY004", "RegNetY006",
           "RegNetY008", "RegNetY016", "RegNetY032", "RegNetY040", "RegNetY064", "RegNetY080",
           "RegNetY120", "RegNetY160", "RegNetY320", "resnet", "ResNet101", "ResNet101V2",
           "ResNet152", "ResNet152V2", "ResNet50", "resnet50", "ResNet50V2", "resnet_rs",
           "resnet_v2", "ResNetRS101", "ResNetRS152", "ResNetRS200", "ResNetRS270",
           "ResNetRS350", "ResNetRS420", "ResNetRS50", "VGG16", "vgg16", "VGG19", "vgg19",
           "Xception", "xception"]
