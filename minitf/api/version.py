"""`tf.version`: the TensorFlow release whose behaviour minitf follows, also `minitf.__version__` (minitf's own
version is `minitf.__minitf_version__`)."""

VERSION = "2.21.0"
GIT_VERSION = "unknown"
COMPILER_VERSION = "unknown"
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
