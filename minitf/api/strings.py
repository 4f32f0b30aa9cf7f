"""`tf.strings`: string ops over tensors of bytes (minitf/ops/strings/)."""

from minitf.ops.strings.farmhash import to_hash_bucket_fast
from minitf.ops.strings.joining import join, reduce_join
from minitf.ops.strings.string_tensors import (
    bytes_split,
    length,
    lower,
    split,
    to_number,
    unicode_decode,
    unicode_encode,
    upper,
)
from minitf.ops.strings.text_ops import as_string, regex_full_match, regex_replace, strip, substr, unicode_split
