"""The Keras layers minitf leaves out, each with the reason (read by `minitf.keras.layers.__getattr__`, which
answers them with `minitf.left_out.LeftOutError`, and by the coverage page)."""

from __future__ import annotations

_THREE_D = "minitf's convolution and pooling ops cover 1-D and 2-D inputs (images, sequences); 3-D volumes are left out"
_AUGMENT = "random image augmentation is left out of minitf; augment the images with NumPy before training"
_OTHER_BACKEND = "it wraps a model of another framework (JAX, Flax, PyTorch), which minitf does not run"
_AUDIO = "audio feature layers are left out of minitf"
_ADAPTIVE = "adaptive pooling is left out of minitf; use a pooling layer with a fixed window"

LEFT_OUT: dict[str, str] = {
    "AvgPool3D": _THREE_D,
    "Convolution3D": _THREE_D,
    "Convolution3DTranspose": _THREE_D,
    "GlobalAvgPool3D": _THREE_D,
    "GlobalMaxPool3D": _THREE_D,
    "MaxPool3D": _THREE_D,
    "AdaptiveAveragePooling1D": _ADAPTIVE,
    "AdaptiveAveragePooling2D": _ADAPTIVE,
    "AdaptiveAveragePooling3D": _ADAPTIVE,
    "AdaptiveMaxPooling1D": _ADAPTIVE,
    "AdaptiveMaxPooling2D": _ADAPTIVE,
    "AdaptiveMaxPooling3D": _ADAPTIVE,
    "AugMix": _AUGMENT,
    "AutoContrast": _AUGMENT,
    "AveragePooling3D": _THREE_D,
    "ContrastLimitedAdaptiveHistogramEqualization": _AUGMENT,
    "Conv3D": _THREE_D,
    "Conv3DTranspose": _THREE_D,
    "ConvLSTM1D": "convolutional recurrent layers are left out of minitf; use Conv1D or Conv2D with LSTM",
    "ConvLSTM2D": "convolutional recurrent layers are left out of minitf; use Conv1D or Conv2D with LSTM",
    "ConvLSTM3D": _THREE_D,
    "Cropping3D": _THREE_D,
    "CutMix": _AUGMENT,
    "Equalization": _AUGMENT,
    "FlaxLayer": _OTHER_BACKEND,
    "GlobalAveragePooling3D": _THREE_D,
    "GlobalMaxPooling3D": _THREE_D,
    "GroupQueryAttention": "grouped-query attention (large language models) is left out of minitf",
    "JaxLayer": _OTHER_BACKEND,
    "MaxNumBoundingBoxes": "bounding-box preprocessing for object detection is left out of minitf",
    "MaxPooling3D": _THREE_D,
    "MelSpectrogram": _AUDIO,
    "MixUp": _AUGMENT,
    "Pipeline": "preprocessing pipelines are left out of minitf; apply the layers one after another",
    "RandAugment": _AUGMENT,
    "RandomColorDegeneration": _AUGMENT,
    "RandomColorJitter": _AUGMENT,
    "RandomElasticTransform": _AUGMENT,
    "RandomErasing": _AUGMENT,
    "RandomGaussianBlur": _AUGMENT,
    "RandomHeight": _AUGMENT,
    "RandomHue": _AUGMENT,
    "RandomWidth": _AUGMENT,
    "RandomInvert": _AUGMENT,
    "RandomPerspective": _AUGMENT,
    "RandomPosterization": _AUGMENT,
    "RandomSaturation": _AUGMENT,
    "RandomSharpness": _AUGMENT,
    "RandomShear": _AUGMENT,
    "ReversibleEmbedding": "reversible (tied input/output) embeddings are left out of minitf; use Embedding",
    "STFTSpectrogram": _AUDIO,
    "Solarization": _AUGMENT,
    "SpatialDropout3D": _THREE_D,
    "SpectralNormalization": "spectral normalization of weights (GAN training) is left out of minitf",
    "TFSMLayer": "loading TensorFlow SavedModels as layers is left out of minitf (it runs TensorFlow's graphs)",
    "TorchModuleWrapper": _OTHER_BACKEND,
    "UpSampling3D": _THREE_D,
    "ZeroPadding3D": _THREE_D,
    "EinsumDense": "einsum-shaped dense layers are left out of minitf; use Dense (it takes inputs of any rank)",
    "HashedCrossing": (
        "feature crossing by hashed pairs is left out of minitf; join the features with tf.strings.join and use Hashing"
    ),
    "RandomBrightness": _AUGMENT,
    "RandomContrast": _AUGMENT,
    "RandomCrop": _AUGMENT,
    "RandomGrayscale": _AUGMENT,
    "RandomRotation": _AUGMENT,
    "RandomTranslation": _AUGMENT,
    "RandomZoom": _AUGMENT,
    "Resizing": (
        "resizing images needs an image interpolation op, which minitf leaves out; resize the images with NumPy or "
        "PIL before training"
    ),
}
