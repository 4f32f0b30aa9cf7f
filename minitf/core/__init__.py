"""The core every part of minitf builds on: what a tensor is (dtypes.py, tensor_shape.py, tensor.py), what is
going on right now (context.py), the one door every op goes through (op.py: `Op` and `bind`), turning Python values
into tensors (conversion.py), TensorFlow's errors (errors.py), the shape rules ops share (shape_rules.py), printing
and logging (printing.py, logs.py), nested structures (nest.py) and devices (devices.py)."""
