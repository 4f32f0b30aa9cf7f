"""`keras.callbacks`: code `fit` calls at the start and end of training, epochs and batches.

callback.py has the base class, the list fit calls hooks on, History and ProgbarLogger; monitor.py the callbacks
that watch a logged value (EarlyStopping, ReduceLROnPlateau, ModelCheckpoint); more.py the rest that needs no
server. Those that need one (TensorBoard, RemoteMonitor) or another library (OrbaxCheckpoint) are left out.
"""

from __future__ import annotations

import minitf.left_out as left_out
from minitf.keras.callbacks.callback import HOOKS, Callback, CallbackList, History, LambdaCallback, ProgbarLogger
from minitf.keras.callbacks.monitor import EarlyStopping, ModelCheckpoint, ReduceLROnPlateau
from minitf.keras.callbacks.more import (
    BackupAndRestore,
    CSVLogger,
    LearningRateScheduler,
    SwapEMAWeights,
    TerminateOnNaN,
)

LEFT_OUT: dict[str, str] = {
    "TensorBoard": "it writes event files for a TensorBoard server, which minitf does not produce",
    "RemoteMonitor": "it posts logs to a server",
    "OrbaxCheckpoint": "it needs the Orbax checkpointing library of JAX",
}
__getattr__ = left_out.module_getattr("tf.keras.callbacks", LEFT_OUT)

__all__ = [
    "HOOKS",
    "BackupAndRestore",
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "ProgbarLogger",
    "ReduceLROnPlateau",
    "SwapEMAWeights",
    "TerminateOnNaN",
]
