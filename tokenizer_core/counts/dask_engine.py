"""Counting on a Dask cluster (``dask.distributed``): one task per partition, a tree of sums.

Each worker counts its partitions with the same code as the local engine (the compiled counter
where it applies) and the partial counts are added pairwise as soon as two are ready, so no
single task holds more than two partials and the client receives one result. The cluster is
either an existing one (``scheduler="tcp://host:8786"``, started with ``dask scheduler`` and
``dask worker``; the workers must be able to import ``tokenizer_core``) or a ``LocalCluster`` of
worker processes on this machine.

A task that fails (a file gone or not UTF-8) fails the job with its own message; a worker that
dies has its tasks run again elsewhere (``retries`` times at most, then Dask's ``KilledWorker``
is turned into a message). Interrupting (Ctrl-C) cancels every task before it returns.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any, Optional

from tokenizer_core.counts.engines import CountJob, Progress, count_partition
from tokenizer_core.counts.neighbours import NeighbourSums
from tokenizer_core.counts.spec import Partial, combine
from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import no_progress

DEFAULT_CONNECT_TIMEOUT = 10.0


def _dask() -> Any:
    try:
        import dask.distributed as dd
    except ImportError:
        raise TokenizerError("--engine dask needs dask.distributed (pip install 'dask[distributed]')") from None
    return dd


@contextlib.contextmanager
def _client(scheduler: Optional[str], *, workers: Optional[int], connect_timeout: float) -> Iterator[Any]:
    dd = _dask()
    # The cluster's own chatter (worker start-up, closed connections) is not the user's business.
    for name in ("distributed", "distributed.worker", "distributed.scheduler", "distributed.nanny"):
        logging.getLogger(name).setLevel(logging.ERROR)
    if scheduler:
        try:
            client = dd.Client(scheduler, timeout=connect_timeout, set_as_default=False)
        except (OSError, TimeoutError) as err:
            raise TokenizerError(f"cannot reach the Dask scheduler at {scheduler} within {connect_timeout:g} s "
                                 f"({type(err).__name__}); is `dask scheduler` running there?") from None
        except ValueError as err:
            raise TokenizerError(f"{scheduler!r} is not a scheduler address like tcp://host:8786 ({err})") from None
        try:
            yield client
        finally:
            client.close()
        return
    n = workers or os.cpu_count() or 1
    cluster = dd.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                              silence_logs=logging.ERROR)
    try:
        client = dd.Client(cluster, set_as_default=False)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


def count_dask(job: CountJob, *, scheduler: Optional[str] = None, workers: Optional[int] = None,
               threads: Optional[int] = 1, retries: int = 2, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
               progress: Progress = no_progress) -> Partial:
    """Count ``job`` on a Dask cluster: the one at ``scheduler``, or a new local one of ``workers``
    processes (default: one per core). The result equals :func:`~tokenizer_core.counts.engines.count_local`'s."""
    if not job.parts:
        raise TokenizerError("nothing to count")
    dd = _dask()
    with _client(scheduler, workers=workers, connect_timeout=connect_timeout) as client:
        leaves: dict[str, Any] = {}
        # The futures not yet summed into another (what Ctrl-C cancels). A future the client still
        # holds keeps its result in a worker's memory, so each is let go once a sum depends on it.
        live: dict[str, Any] = {}
        for part in job.parts:
            fut = client.submit(count_partition, part, job.spec, job.text_column, threads=threads,
                                max_pieces=job.max_pieces, retries=retries, pure=False)
            leaves[fut.key] = part
            live[fut.key] = fut
        pending = dd.as_completed(list(live.values()), loop=client.loop, raise_errors=False)
        try:
            done_parts = done_bytes = 0
            span = {key: (part.index, part.index) for key, part in leaves.items()}
            # Partials are added as soon as a neighbour is ready (a tree of sums, built as tasks
            # finish), the earlier on the left, so the pieces keep their order of first appearance
            # (NeighbourSums). Sums go before counts still waiting (priority), so a worker holds
            # few partials at a time.
            sums = NeighbourSums()
            for fut in pending:
                part = leaves.get(fut.key)
                if fut.status == "error":
                    _raise_task_error(fut, part)
                if part is not None:
                    done_parts += 1
                    done_bytes += part.nbytes
                    progress(done_parts, done_bytes, f"counted {part.path.name}")
                pair = sums.ready(fut, *span[fut.key])
                if pair is None:
                    continue
                summed = client.submit(combine, pair.left, pair.right, max_pieces=job.max_pieces, retries=retries,
                                       pure=False, priority=1)
                span[summed.key] = (pair.first, pair.last)
                live[summed.key] = summed
                for used in (pair.left, pair.right):
                    live.pop(used.key, None)
                pending.add(summed)
            return sums.whole().result()
        except KeyboardInterrupt:
            client.cancel(list(live.values()), force=True)
            raise
        except dd.KilledWorker as err:
            raise TokenizerError(f"Dask workers died while counting, {retries + 1} times on the same task "
                                 f"({err}); the job is stopped") from None


def _raise_task_error(fut: Any, part: Any) -> None:
    dd = _dask()
    err = fut.exception()
    if isinstance(err, dd.KilledWorker):
        raise err
    if isinstance(err, TokenizerError):
        raise TokenizerError(str(err)) from None
    where = f" counting {part.path}" if part is not None else " adding counts"
    raise TokenizerError(f"a Dask task failed{where}: {type(err).__name__}: {err}") from None
