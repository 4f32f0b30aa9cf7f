"""Automatic differentiation: the tape and its helpers (tape.py, tape_order.py, tape_arguments.py), Jacobians,
forward mode, custom gradients, and `tf.gradients` over a graph being traced."""
