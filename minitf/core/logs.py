"""minitf's logger, set up the way TensorFlow sets up its own.

In Jupyter (or any interactive shell) warnings go to stdout at INFO level, so a retracing warning shows
in the cell's output and does not count as an error; elsewhere they go to stderr. Messages read
`WARNING:minitf:...` where TensorFlow's read `WARNING:tensorflow:...`.
"""

from __future__ import annotations

import builtins
import logging
import sys

logger = logging.getLogger("minitf")


def interactive() -> bool:
    """True in Jupyter/IPython or `python -i` (TensorFlow's test for sending output to stdout)."""
    return hasattr(sys, "ps1") or bool(sys.flags.interactive) or hasattr(builtins, "get_ipython")


def warning(message: str, *args: object) -> None:
    """Log a warning on minitf's logger, set up on the first warning (importing minitf changes no logging)."""
    if not _configured:
        _configure()
    logger.warning(message, *args)


_configured = False


def _configure() -> None:
    """Give the logger a handler unless the application configured logging itself (as TensorFlow does)."""
    global _configured
    _configured = True
    if logger.handlers or logging.getLogger().handlers:
        return
    if interactive():
        logger.setLevel(logging.INFO)
        handler = logging.StreamHandler(sys.stdout)
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
    logger.addHandler(handler)


def get_logger() -> logging.Logger:
    """`tf.get_logger()`: the "tensorflow" logger (tutorials quiet it with tf.get_logger().setLevel("ERROR"))."""
    return logging.getLogger("tensorflow")
