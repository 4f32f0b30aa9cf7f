"""`tf.keras.preprocessing`: Keras 2's data preparation that TensorFlow's `tf.keras` still exports. minitf has
`sequence.pad_sequences` (text models pad their token ids with it); the rest is left out, each with a reason."""

import minitf.keras.preprocessing.image as image
import minitf.keras.preprocessing.sequence as sequence
import minitf.keras.preprocessing.text as text
import minitf.left_out as left_out

_FILES = "minitf reads no folders of image, text or audio files; build a tf.data.Dataset from the arrays instead"
LEFT_OUT = {
    "image_dataset_from_directory": _FILES,
    "text_dataset_from_directory": _FILES,
    "timeseries_dataset_from_array": "minitf leaves it out; slice the array into windows with tf.data's window()",
}
__getattr__ = left_out.module_getattr("tf.keras.preprocessing", LEFT_OUT)
__all__ = ["image", "sequence", "text"]
