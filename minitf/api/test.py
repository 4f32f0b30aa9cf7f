"""`tf.test`: the device questions tests ask (one CPU here: no GPU)."""

from minitf.core.devices import gpu_device_name, is_built_with_cuda, is_built_with_gpu_support, is_gpu_available
