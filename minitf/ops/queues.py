"""`tf.queue`: queues of tuples of tensors that one part of a program fills and another empties.

A queue is a Python object holding its elements (each a tuple of NumPy arrays, one per component); its
methods are stateful ops (`QueueEnqueueV2`, `QueueDequeueV2`, ...) whose kernels change that object, so a queue
works eagerly and from inside a `tf.function` that captured it, in program order. As in TensorFlow, a dequeue
from an empty open queue (or an enqueue into a full one) waits for another thread; a closed queue raises
`OutOfRangeError` once it cannot give what was asked. The kinds differ only in which element leaves first:
FIFOQueue the oldest, PriorityQueue the one of least priority (its first component, an int64),
RandomShuffleQueue a random one (minitf's random choice, not TensorFlow's sequence), and PaddingFIFOQueue pads
elements of varying shape with zeros when it dequeues several.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import CancelledError, InvalidArgumentError, OutOfRangeError, kernel_prefix
from minitf.core.op import Op, bind
from minitf.core.tensor_shape import TensorShape

_ids = itertools.count()


def _error(cls: type, op: str, message: str, name: str = "") -> Exception:
    return cls(None, None, f"{kernel_prefix(op)}{message} [Op:{op.split('_')[0]}] name: {name}")


class _Elements:
    """A queue's state: its elements, capacity and whether it is closed, guarded by one condition."""

    def __init__(self, kind: str, capacity: int, shapes: list[TensorShape], min_after_dequeue: int, seed: Any) -> None:
        self.kind, self.capacity, self.shapes = kind, capacity, shapes
        self.min_after_dequeue = min_after_dequeue
        self.items: list[tuple] = []
        self.closed = False
        self.id = next(_ids)
        self.condition = threading.Condition()
        self.order = itertools.count()  # ties between equal priorities leave in the order they came
        self.rng = np.random.default_rng(seed)

    def put(self, rows: list[tuple], op: str) -> None:
        with self.condition:
            for row in rows:
                if self.closed:
                    raise _error(CancelledError, op, f"{self.kind} '{self.id}' is closed.")
                while 0 <= self.capacity <= len(self.items):
                    self.condition.wait()
                self.items.append((next(self.order), row))
                self.condition.notify_all()

    def _take_one(self) -> tuple:
        if self.kind == "PriorityQueue":
            position = min(range(len(self.items)), key=lambda i: (int(self.items[i][1][0]), self.items[i][0]))
        elif self.kind == "RandomShuffleQueue":
            position = int(self.rng.integers(len(self.items)))
        else:
            position = 0
        return self.items.pop(position)[1]

    def take(self, count: int, up_to: bool, op: str, name: str) -> list[tuple]:
        with self.condition:
            keep = self.min_after_dequeue if self.kind == "RandomShuffleQueue" else 0
            while not self.closed and len(self.items) < count + keep:
                self.condition.wait()
            if len(self.items) < count and (not up_to or not self.items):
                raise _error(
                    OutOfRangeError,
                    op,
                    f"{self.kind} '{self.id}' is closed and has insufficient elements (requested {count}, current "
                    f"size {len(self.items)})",
                    name,
                )
            rows = [self._take_one() for _ in range(min(count, len(self.items)))]
            self.condition.notify_all()
            return rows

    def close(self, cancel_pending_enqueues: bool) -> None:
        with self.condition:
            if self.closed:
                raise _error(CancelledError, "QueueCloseV2", f"Queue '{self.id}' is already closed.", "Empty_Close")
            self.closed = True
            self.condition.notify_all()


def _stacked(rows: list[tuple], pad: bool) -> tuple:
    """Rows of components to one array per component (padded with zeros to the longest, for PaddingFIFOQueue)."""
    out = []
    for parts in zip(*rows):
        arrays = [np.asarray(p) for p in parts]
        if pad and arrays:
            longest = np.max([a.shape for a in arrays], axis=0)
            arrays = [np.pad(a, [(0, int(n - s)) for s, n in zip(a.shape, longest)]) for a in arrays]
        out.append(np.stack(arrays))
    return tuple(out)


def _enqueue_kernel(*components: Any, _queue: _Elements, many: bool, op_label: str) -> tuple:
    arrays = [np.asarray(c) for c in components]
    rows = list(zip(*arrays)) if many else [tuple(arrays)]
    _queue.put(rows, op_label)
    return ()


def _dequeue_kernel(
    *count: Any, _queue: _Elements, many: bool, up_to: bool, op_label: str, name: str, types: tuple
) -> tuple:
    op = op_label
    if not many:
        return _queue.take(1, False, op, name)[0]
    n = int(np.asarray(count[0]))
    if _queue.kind != "PaddingFIFOQueue" and not all(s.is_fully_defined() for s in _queue.shapes):
        raise _error(
            InvalidArgumentError,
            op,
            f"{_queue.kind}'s DequeueMany and DequeueUpTo require the components to have specified shapes.",
            name,
        )
    rows = _queue.take(n, up_to, op, name)
    return _stacked(rows, pad=_queue.kind == "PaddingFIFOQueue")


def _dequeue_rule(shapes_: Any, types: Any, attrs: dict, values: Any = None) -> list:
    """One element's shapes; with `dequeue_many(n)`, n of them (a constant n is known; `dequeue_up_to` may give
    fewer)."""
    queue = attrs["_queue"]
    rows: list[int | None] = [] if not attrs["many"] else [None]
    if attrs["many"] and not attrs["up_to"] and values and values[0] is not None:
        rows = [int(values[0])]
    return [(TensorShape(rows) + shape, dtype) for shape, dtype in zip(queue.shapes, attrs["types"])]


_NO_OUTPUTS = {"shape": lambda s, t, a: [], "num_outputs": 0, "stateful": True}
QueueEnqueue = Op("QueueEnqueueV2", _enqueue_kernel, **_NO_OUTPUTS)  # type: ignore[arg-type]
QueueDequeue = Op(
    "QueueDequeueV2", _dequeue_kernel, shape=_dequeue_rule, num_outputs=-1, stateful=True, value_dependent=True
)
QueueSize = Op(
    "QueueSizeV2",
    lambda *, _queue: np.int32(len(_queue.items)),
    shape=lambda s, t, a: [(TensorShape([]), dtypes.int32)],
    stateful=True,
)
QueueIsClosed = Op(
    "QueueIsClosedV2",
    lambda *, _queue: np.bool_(_queue.closed),
    shape=lambda s, t, a: [(TensorShape([]), dtypes.bool)],
    stateful=True,
)
QueueClose = Op(
    "QueueCloseV2",
    lambda *, _queue, cancel_pending_enqueues: _queue.close(cancel_pending_enqueues) or (),
    **_NO_OUTPUTS,  # type: ignore[arg-type]
)


class QueueBase:
    """`tf.queue.QueueBase`: what every queue shares (enqueue, dequeue, size, close)."""

    _kind = "FIFOQueue"

    def __init__(
        self,
        capacity: int,
        dtypes_: Any,
        shapes: Any = None,
        names: Any = None,
        min_after_dequeue: int = 0,
        seed: Any = None,
    ) -> None:
        listed = list(dtypes_) if isinstance(dtypes_, list | tuple) else [dtypes_]
        self._dtypes = [dtypes.as_dtype(d) for d in listed]
        if shapes is None:
            self._shapes = [TensorShape(None)] * len(self._dtypes)
        else:
            listed_shapes = list(shapes) if isinstance(shapes, list | tuple) else [shapes]
            if listed_shapes and not isinstance(listed_shapes[0], list | tuple | TensorShape):
                listed_shapes = [listed_shapes]  # one component's shape given as a list of sizes
            self._shapes = [TensorShape(s) for s in listed_shapes]
            if len(self._shapes) != len(self._dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
        self._names = list(names) if isinstance(names, list | tuple) else ([names] if names is not None else None)
        if self._names is not None and len(self._names) != len(self._dtypes):
            raise ValueError("Queue names must have the same length as dtypes")
        self._state = _Elements(self._kind, int(capacity), self._shapes, min_after_dequeue, seed)

    @staticmethod
    def from_list(index: Any, queues: list) -> QueueBase:
        """The queue `queues[index]` (all must have the same dtypes)."""
        first = queues[0]
        if any(q.dtypes != first.dtypes for q in queues):
            raise TypeError("Queues do not have matching component dtypes.")
        return queues[int(np.asarray(convert_to_tensor(index)))]

    name = property(lambda self: "Empty", doc="TensorFlow's eager queues are all named after their first op.")
    dtypes = property(lambda self: list(self._dtypes))
    shapes = property(lambda self: list(self._shapes))
    names = property(lambda self: None if self._names is None else list(self._names))
    queue_ref = property(lambda self: self._state)

    def _components(self, vals: Any) -> list:
        """`vals` (one value, a tuple/list of components, or a dict by name) as tensors of the queue's dtypes."""
        if isinstance(vals, dict):
            if self._names is None:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names) != sorted(vals.keys()):
                raise ValueError(
                    f"Keys in dictionary to enqueue do not match names of Queue.  Dictionary: {sorted(vals.keys())},"
                    f"Queue: {sorted(self._names)}"
                )
            vals = [vals[k] for k in self._names]
        else:
            if self._names is not None:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, list | tuple):
                vals = [vals]
        return [convert_to_tensor(v, dtype=d) for v, d in zip(vals, self._dtypes)]

    def enqueue(self, vals: Any, name: Any = None) -> Any:
        """Add one element (a value per component)."""
        tensors = self._components(vals)
        for tensor, shape in zip(tensors, self._shapes):
            tensor.shape.assert_is_compatible_with(shape)
        op = f"QueueEnqueueV2_Tcomponents_{len(tensors)}"
        return _effect(bind(QueueEnqueue, *tensors, _queue=self._state, many=False, op_label=op))

    def enqueue_many(self, vals: Any, name: Any = None) -> Any:
        """Add several elements: each component's first axis runs over the elements."""
        tensors = self._components(vals)
        batch = TensorShape([None])
        for tensor, shape in zip(tensors, self._shapes):
            batch = TensorShape([_merged(batch[0], tensor.shape.with_rank_at_least(1)[0])])
            tensor.shape[1:].assert_is_compatible_with(shape)
        op = f"QueueEnqueueManyV2_Tcomponents_{len(tensors)}"
        return _effect(bind(QueueEnqueue, *tensors, _queue=self._state, many=True, op_label=op))

    def _dequeued(self, parts: Any) -> Any:
        parts = list(parts)
        if self._names is not None:
            return dict(zip(self._names, parts))
        return parts[0] if len(parts) == 1 else parts

    def _dequeue(self, count: Any, up_to: bool, label: str) -> Any:
        many = count is not None
        op = f"Queue{label}V2_component_types_{len(self._dtypes)}"
        inputs = [convert_to_tensor(count, dtype=dtypes.int32)] if many else []
        parts = bind(
            QueueDequeue,
            *inputs,
            _queue=self._state,
            many=many,
            up_to=up_to,
            op_label=op,
            name=f"Empty_{label}",
            types=tuple(self._dtypes),
        )
        return self._dequeued(parts)

    def dequeue(self, name: Any = None) -> Any:
        """Remove one element and return it (one tensor per component)."""
        return self._dequeue(None, False, "Dequeue")

    def dequeue_many(self, n: Any, name: Any = None) -> Any:
        """Remove `n` elements, stacked along a new first axis."""
        return self._dequeue(n, False, "DequeueMany")

    def dequeue_up_to(self, n: Any, name: Any = None) -> Any:
        """As dequeue_many, but a closed queue gives what it has left (at least one)."""
        return self._dequeue(n, True, "DequeueUpTo")

    def size(self, name: Any = None) -> Any:
        return bind(QueueSize, _queue=self._state)

    def is_closed(self, name: Any = None) -> Any:
        return bind(QueueIsClosed, _queue=self._state)

    def close(self, cancel_pending_enqueues: bool = False, name: Any = None) -> Any:
        """No more enqueues; dequeues take what is left, then raise OutOfRangeError."""
        return _effect(bind(QueueClose, _queue=self._state, cancel_pending_enqueues=cancel_pending_enqueues))


def _effect(op: Any) -> Any:
    """An op run for its effect: nothing eagerly (as TensorFlow returns None), the operation while tracing."""
    return None if state.graph is None else op


def _merged(a: int | None, b: int | None) -> int | None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")
    return a if a is not None else b


class FIFOQueue(QueueBase):
    """`tf.queue.FIFOQueue`: elements leave in the order they came."""

    def __init__(
        self,
        capacity: int,
        dtypes: Any,
        shapes: Any = None,
        names: Any = None,
        shared_name: Any = None,
        name: str = "fifo_queue",
    ) -> None:
        super().__init__(capacity, dtypes, shapes, names)


class PaddingFIFOQueue(QueueBase):
    """`tf.queue.PaddingFIFOQueue`: a FIFOQueue whose shapes may have unknown sizes; `dequeue_many` pads the
    elements to the longest with zeros."""

    _kind = "PaddingFIFOQueue"

    def __init__(
        self,
        capacity: int,
        dtypes: Any,
        shapes: Any,
        names: Any = None,
        shared_name: Any = None,
        name: str = "padding_fifo_queue",
    ) -> None:
        super().__init__(capacity, dtypes, shapes, names)


class RandomShuffleQueue(QueueBase):
    """`tf.queue.RandomShuffleQueue`: a random element leaves; a dequeue waits until more than
    `min_after_dequeue` elements remain (unless the queue is closed)."""

    _kind = "RandomShuffleQueue"

    def __init__(
        self,
        capacity: int,
        min_after_dequeue: int,
        dtypes: Any,
        shapes: Any = None,
        names: Any = None,
        seed: Any = None,
        shared_name: Any = None,
        name: str = "random_shuffle_queue",
    ) -> None:
        super().__init__(capacity, dtypes, shapes, names, min_after_dequeue=int(min_after_dequeue), seed=seed)


class PriorityQueue(QueueBase):
    """`tf.queue.PriorityQueue`: each element starts with an int64 priority; the least leaves first."""

    _kind = "PriorityQueue"

    def __init__(
        self,
        capacity: int,
        types: Any,
        shapes: Any = None,
        names: Any = None,
        shared_name: Any = None,
        name: str = "priority_queue",
    ) -> None:
        listed = list(types) if isinstance(types, list | tuple) else [types]
        given = None if shapes is None else [TensorShape(s) for s in shapes]
        super().__init__(capacity, [dtypes.int64, *listed], None if given is None else [TensorShape([]), *given], names)
