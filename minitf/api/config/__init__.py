"""`tf.config`: running functions eagerly, the devices (minitf/core/devices.py), the graph optimiser's
switches (`tf.config.optimizer`) and the thread counts (`tf.config.threading`)."""

from minitf.api.config import experimental, optimizer, threading
from minitf.core.devices import (
    LogicalDevice,
    LogicalDeviceConfiguration,
    PhysicalDevice,
    get_logical_device_configuration,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_logical_device_configuration,
    set_visible_devices,
)
from minitf.function.function import functions_run_eagerly, run_functions_eagerly
from minitf.function.function import functions_run_eagerly as experimental_functions_run_eagerly
from minitf.function.function import run_functions_eagerly as experimental_run_functions_eagerly
