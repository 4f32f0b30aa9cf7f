"""`tf.config.experimental`: the device functions under their older names."""

from minitf.core.devices import LogicalDeviceConfiguration as VirtualDeviceConfiguration
from minitf.core.devices import (
    get_device_details,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_visible_devices,
)
from minitf.core.devices import get_logical_device_configuration as get_virtual_device_configuration
from minitf.core.devices import set_logical_device_configuration as set_virtual_device_configuration
