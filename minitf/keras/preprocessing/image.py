"""`tf.keras.preprocessing.image`: Keras 2's image loading and augmentation, left out (minitf reads no image files;
the augmentation layers such as keras.layers.RandomFlip do the random transforms)."""

import minitf.left_out as left_out

_REASON = "minitf reads and writes no image files, and Keras 2's image generators are replaced by tf.data"
LEFT_OUT = dict.fromkeys(
    [
        "DirectoryIterator",
        "ImageDataGenerator",
        "Iterator",
        "NumpyArrayIterator",
        "apply_affine_transform",
        "apply_brightness_shift",
        "apply_channel_shift",
        "array_to_img",
        "img_to_array",
        "load_img",
        "random_brightness",
        "random_channel_shift",
        "random_rotation",
        "random_shear",
        "random_shift",
        "random_zoom",
        "save_img",
        "smart_resize",
    ],
    _REASON,
)
__getattr__ = left_out.module_getattr("tf.keras.preprocessing.image", LEFT_OUT)
