"""`threads.one_blas_thread`: NumPy's matrix products on the calling thread alone for a block (a convolution's
thin products use it), and the BLAS's own thread count back afterwards, also when threads use it at once."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from threadpoolctl import ThreadpoolController

from minitf.core.threads import one_blas_thread


@pytest.fixture(autouse=True)
def two_blas_threads() -> Iterator[None]:
    """The tests run the BLAS on one thread (conftest.py); two here, so that a count left at 1 shows."""
    with ThreadpoolController().limit(limits=2, user_api="blas"):
        yield


def blas_threads() -> list[int]:
    return [info["num_threads"] for info in ThreadpoolController().select(user_api="blas").info()]


def test_products_run_on_one_thread_inside_the_block_and_the_count_comes_back() -> None:
    before = blas_threads()
    assert before and all(count == 2 for count in before)
    with one_blas_thread():
        inside = blas_threads()
    assert inside == [1] * len(before)
    assert blas_threads() == before


def test_threads_using_it_at_once_leave_the_count_as_it_was() -> None:
    before = blas_threads()

    def work() -> None:
        for _ in range(50):
            with one_blas_thread():
                pass

    workers = [threading.Thread(target=work) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert blas_threads() == before
