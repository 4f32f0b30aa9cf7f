"""`tf.debugging`: switches and checks that help find out what a program does."""

from minitf.devices import get_log_device_placement, set_log_device_placement

__all__ = ["get_log_device_placement", "set_log_device_placement"]
