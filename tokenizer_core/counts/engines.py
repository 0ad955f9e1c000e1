"""Counting a corpus in this process (the local engine), and the task every engine runs per partition.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "a.txt").write_text("low lower\\nlow\\n")
>>> job = CountJob(CountSpec("bpe"), partitions(expand([str(d)]), part_bytes=4))
>>> sorted(count_local(job).counts.items())
[('low', 2), ('lower', 1)]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Callable, Optional

from tokenizer_core.counts.inputs import Partition, expand, partitions
from tokenizer_core.counts.readers import lines_of
from tokenizer_core.counts.spec import DEFAULT_MAX_PIECES, CountSpec, Partial, check_size
from tokenizer_core.types import no_progress

__all__ = ["CountJob", "Progress", "count_local", "count_partition", "expand", "partitions"]

#: ``progress(partitions_done, bytes_done, message)``: how far a count has got.
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class CountJob:
    """What to count: the partitions (in corpus order), how, and from which column of tables."""

    spec: CountSpec
    parts: list[Partition]
    text_column: Optional[str] = None
    max_pieces: Optional[int] = DEFAULT_MAX_PIECES

    @property
    def total_bytes(self) -> int:
        return sum(p.nbytes for p in self.parts)

    @property
    def files(self) -> int:
        return len({p.path for p in self.parts})


def count_partition(part: Partition, spec: CountSpec, text_column: Optional[str] = None, *,
                    threads: Optional[int] = 1, max_pieces: Optional[int] = DEFAULT_MAX_PIECES) -> Partial:
    """The counts of one partition (what a Dask task runs; one thread by default: the cluster's
    workers are the parallelism)."""
    partial = spec.count(lines_of(part, text_column=text_column), first=part.index, threads=threads)
    check_size(len(partial.counts), max_pieces)
    return partial


def count_local(job: CountJob, *, threads: Optional[int] = None, progress: Progress = no_progress) -> Partial:
    """Count every partition of ``job`` in this process, in one pass (the counter's threads split the
    work: ``threads``, default every core); memory grows with the distinct pieces, not the corpus."""
    state = {"parts": 0, "bytes": 0}

    def lines() -> Iterator[str]:
        for part in job.parts:
            yield from lines_of(part, text_column=job.text_column)
            state["parts"] += 1
            state["bytes"] += part.nbytes
            progress(state["parts"], state["bytes"], f"counted {part.path.name}")

    partial = job.spec.count(lines(), first=0, last=max(len(job.parts) - 1, 0), threads=threads)
    check_size(len(partial.counts), job.max_pieces)
    return partial
