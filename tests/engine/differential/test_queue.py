"""tf.queue eagerly and from a tf.function that captured a queue, on both engines: FIFO order, several
components, names, enqueue_many/dequeue_many/dequeue_up_to, padding, priorities, closing, and the errors for a
closed or exhausted queue, unknown shapes and mismatched shapes. RandomShuffleQueue's order is minitf's own random
choice, so its test compares what came out as a multiset."""

from __future__ import annotations

from typing import Any

import pytest
from enumeration import assert_enumerated
from harness import assert_same_error, minitf, real_tf, run, same_program

TESTED = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]


def test_every_tf_queue_name_is_tested_or_left_out() -> None:
    assert_enumerated("queue", TESTED)


def test_a_fifo_queue_gives_elements_back_in_order() -> None:
    def case(tf: Any, seen: list) -> None:
        q = tf.queue.FIFOQueue(3, tf.float32)
        seen.extend([q.enqueue(1.0), q.enqueue_many([[2.0, 3.0]]), q.size(), q.dequeue(), q.dequeue()])
        seen.extend([q.dtypes, q.shapes, q.names, q.is_closed(), isinstance(q, tf.queue.QueueBase)])
        pairs = tf.queue.FIFOQueue(4, [tf.float32, tf.int32], shapes=[[2], []])
        pairs.enqueue_many(([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [5, 6, 7]))
        pairs.enqueue(([7.0, 8.0], 8))
        seen.extend([pairs.dequeue_many(2), pairs.dequeue()])
        pairs.close()
        seen.extend([pairs.is_closed(), pairs.dequeue_up_to(5), pairs.size()])
        named = tf.queue.FIFOQueue(2, [tf.int32, tf.string], names=["n", "s"])
        named.enqueue({"n": 1, "s": "one"})
        seen.append(named.dequeue())
        seen.append(tf.queue.QueueBase.from_list(1, [q, pairs]).dtypes)

    same_program(case)


def test_a_closed_empty_queue_raises_out_of_range() -> None:
    def case(tf: Any, seen: list) -> None:
        q = tf.queue.FIFOQueue(2, tf.int32, shapes=[[]])
        q.enqueue(1)
        q.close()
        seen.append(q.dequeue())
        q.dequeue_many(1)

    same_program(case, "is closed and has insufficient elements (requested 1, current size 0)")


def test_padding_and_priority_queues() -> None:
    def case(tf: Any, seen: list) -> None:
        p = tf.queue.PaddingFIFOQueue(4, tf.int32, shapes=[[None]])
        p.enqueue([[1]])
        p.enqueue([[1, 2, 3]])
        seen.append(p.dequeue_many(2))
        pq = tf.queue.PriorityQueue(5, [tf.string], shapes=[[]])
        pq.enqueue((3, "c"))
        pq.enqueue_many(([5, 2, 9], ["e", "b", "i"]))
        seen.extend([pq.dtypes, pq.shapes, pq.dequeue_many(2), pq.dequeue(), pq.size()])

    same_program(case)


def test_a_function_that_captured_a_queue_fills_it_in_program_order() -> None:
    def case(tf: Any, seen: list) -> None:
        q = tf.queue.FIFOQueue(5, tf.int32, shapes=[[]])

        @tf.function
        def push_twice(x: Any) -> Any:
            q.enqueue(x)
            q.enqueue(x * 10)
            return q.size()

        seen.extend([push_twice(tf.constant(1)), push_twice(tf.constant(2)), q.dequeue_many(4)])

    same_program(case)


def test_a_random_shuffle_queue_gives_back_what_it_got_and_keeps_min_after_dequeue() -> None:
    def case(tf: Any, seen: list) -> None:
        r = tf.queue.RandomShuffleQueue(10, 2, tf.int32, shapes=[[]], seed=3)
        r.enqueue_many([list(range(6))])
        taken = sorted(int(v) for v in r.dequeue_many(4))
        seen.extend([len(taken), len(set(taken)), set(taken) <= set(range(6)), r.size()])
        r.close()
        rest = sorted(int(v) for v in r.dequeue_up_to(5))
        seen.append(sorted(taken + rest))

    same_program(case)


def test_a_random_shuffle_queue_mixes_its_elements() -> None:
    r = minitf.queue.RandomShuffleQueue(100, 0, minitf.int32, shapes=[[]], seed=1)
    r.enqueue_many([list(range(50))])
    assert [int(v) for v in r.dequeue_many(50)] != list(range(50))


@pytest.mark.parametrize(
    ("mistake", "fragment"),
    [
        (lambda tf: tf.queue.FIFOQueue(2, tf.int32).dequeue_many(1), "require the components to have specified"),
        (lambda tf: tf.queue.FIFOQueue(2, tf.int32, shapes=[[2]]).enqueue([1, 2, 3]), "are incompatible"),
        (lambda tf: tf.queue.FIFOQueue(2, tf.int32).enqueue({"a": 1}), "Queue must have names"),
        (lambda tf: tf.queue.FIFOQueue(2, tf.int32).enqueue(1.5), "Cannot convert 1.5"),
        (lambda tf: [q := tf.queue.FIFOQueue(2, tf.int32), q.close(), q.enqueue(1)], "is closed."),
        (lambda tf: [q := tf.queue.FIFOQueue(2, tf.int32), q.close(), q.close()], "is already closed."),
    ],
    ids=["unknown-shape", "shape", "dict", "dtype", "enqueue-closed", "close-twice"],
)
def test_mistakes_raise_tensorflows_errors(mistake: Any, fragment: str) -> None:
    # The messages name each queue by its resource number, which differs between the engines: compare the rest.
    mine, theirs = run(minitf, mistake), run(real_tf, mistake)
    assert mine.error is not None and theirs.error is not None
    assert_same_error(mine.error, theirs.error, fragment=fragment)
