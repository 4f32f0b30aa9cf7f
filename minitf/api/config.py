"""The small public namespaces that belong to tf.function: `tf.config` (eager switch, graph optimiser switches)
and `tf.autograph`."""

from __future__ import annotations

import types

from minitf.core import devices as _device
from minitf.function.autograph import converter as _autograph
from minitf.function.autograph import operators as _operators
from minitf.function.compiling import optimizer as _optimizer
from minitf.function.function import functions_run_eagerly, run_functions_eagerly

config = types.SimpleNamespace(run_functions_eagerly=run_functions_eagerly,
                               functions_run_eagerly=functions_run_eagerly,
                               experimental_run_functions_eagerly=run_functions_eagerly,
                               experimental_functions_run_eagerly=functions_run_eagerly,
                               list_physical_devices=_device.list_physical_devices,
                               list_logical_devices=_device.list_logical_devices,
                               get_visible_devices=_device.get_visible_devices,
                               PhysicalDevice=_device.PhysicalDevice,
                               LogicalDevice=_device.LogicalDevice,
                               set_visible_devices=_device.set_visible_devices,
                               LogicalDeviceConfiguration=_device.LogicalDeviceConfiguration,
                               set_logical_device_configuration=_device.set_logical_device_configuration,
                               get_logical_device_configuration=_device.get_logical_device_configuration,
                               experimental=types.SimpleNamespace(
                                   VirtualDeviceConfiguration=_device.LogicalDeviceConfiguration,
                                   set_virtual_device_configuration=_device.set_logical_device_configuration,
                                   get_virtual_device_configuration=_device.get_logical_device_configuration,
                                   list_physical_devices=_device.list_physical_devices,
                                   list_logical_devices=_device.list_logical_devices,
                                   get_visible_devices=_device.get_visible_devices,
                                   set_visible_devices=_device.set_visible_devices,
                                   get_device_details=_device.get_device_details),
                               optimizer=types.SimpleNamespace(
                                   set_experimental_options=_optimizer.set_experimental_options,
                                   get_experimental_options=_optimizer.get_experimental_options,
                                   set_jit=_optimizer.set_jit,
                                   get_jit=_optimizer.get_jit))

test = types.SimpleNamespace(gpu_device_name=_device.gpu_device_name, is_built_with_cuda=_device.is_built_with_cuda,
                             is_built_with_gpu_support=_device.is_built_with_gpu_support,
                             is_gpu_available=_device.is_gpu_available)


autograph = types.SimpleNamespace(
    to_code=_autograph.to_code,
    experimental=types.SimpleNamespace(set_loop_options=_operators.set_loop_options,
                                       do_not_convert=_autograph.do_not_convert),
    set_verbosity=lambda level, alsologtostdout=False: None,
)
