"""Where independent per-file work runs: here, in forked worker processes, or as tasks on a Dask cluster.

Callers hand over ``work(shared, item)``, the ``shared`` value every call needs (options) and the items
(one per file); they get the results back in the items' order, whichever backend ran them.  Only items
and results travel: forked workers inherit ``shared`` (and the rules and grammars already loaded), and
a Dask cluster receives it once per worker.

The Dask backend needs ``distributed`` (``pip install 'tlint-traces[dask]'``) here and tlint installed on the
workers, which must see the files at the paths the client names (a shared file system).
"""

from __future__ import annotations

import gc
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from lint.models.common import Record

Item = TypeVar("Item")
Shared = TypeVar("Shared")
Result = TypeVar("Result")
Progress = Callable[[int, int], None]  # (items done, items in all)

CONNECT_TIMEOUT_SECONDS = 30
CHUNKS_PER_WORKER = 8  # enough chunks to balance files of different sizes, few enough to keep overheads small
GUIDED_SHARE = 4  # a local chunk takes 1/(jobs * 4) of the files not yet handed out...
MAX_CHUNK = 64  # ... and at most this many: one message of results stays a few megabytes


class BackendError(Exception):
    """The backend asked for cannot be used: ``distributed`` missing, or no scheduler at the address."""


class Backend(Record):
    """Where files are read: in this process, in forked worker processes, or on a Dask cluster."""

    __slots__ = ("jobs", "dask_scheduler")
    __hash__ = Record.hash_of_fields  # never changed once made

    def __init__(self, jobs: int = 1, dask_scheduler: str | None = None) -> None:
        self.jobs = jobs  # local worker processes
        self.dask_scheduler = dask_scheduler  # a Dask scheduler's address: when set, ``jobs`` is not used

    @property
    def forks(self) -> bool:
        """Whether work may run in forked worker processes (which inherit what this process loaded)."""
        return self.dask_scheduler is None and self.jobs > 1


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def run_each(
    work: Callable[[Shared, Item], Result],
    shared: Shared,
    items: Sequence[Item],
    backend: Backend,
    progress: Progress | None = None,
    cleanup: Callable[[], object] | None = None,
) -> Iterator[Result]:
    """``work(shared, item)`` of each item, run on ``backend``, yielded in the items' order as they arrive (a Dask
    cluster's a chunk at a time); ``cleanup`` then runs where the work ran.  A caller that folds each result
    into a summary holds none of them."""
    if backend.dask_scheduler is not None:
        yield from _on_dask(work, shared, items, backend.dask_scheduler, progress, cleanup)
        return
    jobs = min(backend.jobs, len(items))
    if jobs <= 1 or not _can_fork():
        yield from _counted((work(shared, item) for item in items), len(items), progress)
    else:
        yield from _forked(work, shared, items, jobs, progress)
    if cleanup is not None:
        cleanup()


def _can_fork() -> bool:
    import multiprocessing  # here: a check of one file, or served from the cache, starts no worker

    return "fork" in multiprocessing.get_all_start_methods()


def _counted(results: Iterable[Result], total: int, progress: Progress | None) -> Iterator[Result]:
    for done, result in enumerate(results, 1):
        yield result
        if progress is not None:
            progress(done, total)


_inherited: tuple[Callable[[Any, Any], Any], Any, Sequence[Any]] | None = None


def _run_inherited(start: int, stop: int) -> list[Any]:
    assert _inherited is not None
    work, shared, items = _inherited
    return [work(shared, items[index]) for index in range(start, stop)]


def _forked(work: Callable[[Shared, Item], Result], shared: Shared, items: Sequence[Item], jobs: int, progress: Progress | None) -> Iterator[Result]:
    """Fork after the caller loaded what the work needs: workers inherit it, and only indexes and results travel."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _inherited
    _inherited = (work, shared, items)
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"), initializer=_worker_started) as pool:
            pending = deque(pool.submit(_run_inherited, start, stop) for start, stop in _spans(len(items), jobs))

            def arrived() -> Iterator[Result]:
                while pending:  # a chunk's results are let go once handed on (its future would keep them)
                    yield from pending.popleft().result()

            try:
                yield from _counted(arrived(), len(items), progress)
            except BaseException:  # (an interrupt): the chunks not yet started are not run
                for future in pending:
                    future.cancel()
                raise
    finally:
        _inherited = None


def _worker_started() -> None:
    """What a worker inherited lives until it exits: frozen, its collections never walk it (nor copy its pages).
    The parent may have paused collection while it only gathers results: a worker reads files with it on."""
    gc.freeze()
    gc.enable()


def _spans(total: int, jobs: int) -> Iterator[tuple[int, int]]:
    """Index ranges of shrinking size (guided scheduling): large first chunks keep messages few, and the last
    ones, a file or two each, let the workers finish together instead of one waiting on another's long chunk."""
    start = 0
    while start < total:
        size = max(1, min(MAX_CHUNK, (total - start) // (jobs * GUIDED_SHARE)))
        yield start, start + size
        start += size


def _run_chunk(work: Callable[[Shared, Item], Result], shared: Shared, chunk: Sequence[Item]) -> list[Result]:
    return [work(shared, item) for item in chunk]


def _chunks(items: Sequence[Item], size: int) -> Iterator[Sequence[Item]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _on_dask(
    work: Callable[[Shared, Item], Result],
    shared: Shared,
    items: Sequence[Item],
    address: str,
    progress: Progress | None,
    cleanup: Callable[[], object] | None,
) -> Iterator[Result]:
    from concurrent.futures import CancelledError

    try:
        from distributed import Client, KilledWorker
    except ImportError:
        raise BackendError("--dask-scheduler needs the 'distributed' package: pip install 'tlint-traces[dask]'") from None

    class ClosingClient(Client):
        """A Client that closes itself when it cannot start: distributed closes one that fails to connect with
        an OSError only, and one left half started (``bogus``, ``inproc://x``) waits forever when collected at exit."""

        def start(self, **kwargs: Any) -> None:
            try:
                super().start(**kwargs)  # type: ignore[no-untyped-call]  # distributed has no annotations
            except BaseException:
                self.close()  # type: ignore[no-untyped-call]
                raise

    try:
        client = ClosingClient(address, timeout=CONNECT_TIMEOUT_SECONDS, set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError, TypeError) as error:  # TypeError: a tls:// address, TLS not configured
        raise BackendError(f"cannot reach the Dask scheduler at {address}: {error}") from None
    with client:
        try:
            yield from _submitted(client, work, shared, items, progress, cleanup)
        except (OSError, TimeoutError, CancelledError, KilledWorker) as error:  # the cluster, not the work, failed
            raise BackendError(f"the Dask cluster at {address} failed: {type(error).__name__}: {error}") from None


def _submitted(
    client: Any,
    work: Callable[[Shared, Item], Result],
    shared: Shared,
    items: Sequence[Item],
    progress: Progress | None,
    cleanup: Callable[[], object] | None,
) -> Iterator[Result]:
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    size = max(1, len(items) // (workers * CHUNKS_PER_WORKER))
    on_workers = client.scatter(shared, broadcast=True)
    chunks = list(_chunks(items, size))
    futures = [client.submit(_run_chunk, work, on_workers, chunk, pure=False) for chunk in chunks]
    done = 0
    for future in futures:  # in order: the cluster runs the later chunks meanwhile
        chunk = future.result()  # a task's own exception is raised here, as it would be locally
        future.release()  # the results are handed on from here, not kept on the cluster
        done += len(chunk)
        yield from chunk
        if progress is not None:
            progress(done, len(items))
    if cleanup is not None:
        client.run(cleanup)
