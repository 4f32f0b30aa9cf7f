"""`tf.io` and the protocol buffers of `tf.train`: TensorFlow's file and message formats, written from their
specifications. wire.py: protobuf's wire format; example_proto.py: `tf.train.Example` and its parts;
tensor_proto.py: `serialize_tensor` / `parse_tensor`; parsing.py: `parse_single_example` / `parse_example`;
tfrecord.py: TFRecord files."""
