"""`tf.keras.preprocessing.text`: Keras 2's tokenizer, left out; the TextVectorization layer does its work."""

import minitf.left_out as left_out

_REASON = "it is Keras 2's text preparation; use the keras.layers.TextVectorization layer"
LEFT_OUT = dict.fromkeys(
    ["Tokenizer", "hashing_trick", "one_hot", "text_to_word_sequence", "tokenizer_from_json"], _REASON
)
__getattr__ = left_out.module_getattr("tf.keras.preprocessing.text", LEFT_OUT)
