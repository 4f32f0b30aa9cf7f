"""`tf.io`: tensors as bytes, `Example` parsing and TFRecord files (minitf/io/)."""

import minitf.left_out as left_out
from minitf.io.csv import decode_csv
from minitf.io.parsing import FixedLenFeature, RaggedFeature, VarLenFeature, parse_example, parse_single_example
from minitf.io.raw_bytes import decode_raw
from minitf.io.sequence_parsing import (
    FixedLenSequenceFeature,
    parse_sequence_example,
    parse_single_sequence_example,
)
from minitf.io.tensor_proto import parse_tensor, serialize_tensor
from minitf.io.tfrecord import TFRecordOptions, TFRecordWriter

LEFT_OUT: dict[str, str] = {
    **dict.fromkeys(
        [
            "decode_and_crop_jpeg",
            "decode_bmp",
            "decode_gif",
            "decode_image",
            "decode_jpeg",
            "decode_jxl",
            "decode_png",
            "decode_webp",
            "encode_jpeg",
            "encode_png",
            "extract_jpeg_shape",
            "is_jpeg",
        ],
        "minitf has no image codecs; decode images with PIL or imageio into NumPy arrays, then tf.constant",
    ),
    "SparseFeature": "parsing into a SparseTensor from index and value features is not implemented; use VarLenFeature",
    "decode_base64": "web-safe base64 strings are not implemented; use Python's base64.urlsafe_b64decode",
    "encode_base64": "web-safe base64 strings are not implemented; use Python's base64.urlsafe_b64encode",
    "decode_compressed": "compressed string tensors are not implemented; use Python's gzip or zlib on the bytes",
    "decode_json_example": "JSON-encoded Example protos are not implemented; build tf.train.Example objects",
    "decode_proto": "decoding arbitrary protocol buffers needs their descriptors, which minitf does not read",
    "encode_proto": "encoding arbitrary protocol buffers needs their descriptors, which minitf does not read",
    "deserialize_many_sparse": "serialized SparseTensors are not implemented; keep the SparseTensor itself",
    "serialize_many_sparse": "serialized SparseTensors are not implemented; keep the SparseTensor itself",
    "serialize_sparse": "serialized SparseTensors are not implemented; keep the SparseTensor itself",
    "gfile": "TensorFlow's file system layer is not implemented; use Python's open, os and glob",
    "match_filenames_once": "a graph-collection variable of TensorFlow 1; use tf.data.Dataset.list_files or glob",
    "matching_files": "not implemented; use tf.data.Dataset.list_files or Python's glob.glob",
    "read_file": "not implemented as an op; read the file with Python's open(path, 'rb').read()",
    "write_file": "not implemented as an op; write the file with Python's open(path, 'wb').write(data)",
    "write_graph": "minitf's graphs are not GraphDef protocol buffers; draw one with minitf's graph drawing instead",
}
__getattr__ = left_out.module_getattr("tf.io", LEFT_OUT)
