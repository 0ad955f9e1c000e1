"""Counting on a real Dask cluster (issue #30): a scheduler and two worker processes started with
the ``dask`` command line on free local ports, compared with the local engine byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests._cli import run
from tests._paths import ROOT
from tests.core.counts.test_counts import _corpus_dir
from tokenizer_core.counts.engines import CountJob, count_local
from tokenizer_core.counts.inputs import expand, partitions
from tokenizer_core.counts.spec import CountSpec
from tokenizer_core.errors import TokenizerError

distributed = pytest.importorskip("distributed")
from tokenizer_core.counts.dask_engine import count_dask  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask_command() -> list[str]:
    """The `dask` command of this Python (its console script, or the module behind it)."""
    script = Path(sys.executable).with_name("dask")
    return [str(script)] if script.exists() else [sys.executable, "-m", "dask"]


class Cluster:
    """A scheduler and worker processes of the `dask` command line, each in its own process group."""

    def __init__(self, workers: int) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        self.env = env
        self.procs: list[subprocess.Popen] = []
        # The scheduler picks its own free port (0) and writes where it listens to a file: a port picked
        # here and bound later could be taken meanwhile by another test's server, and a client that
        # reached that server instead waited forever for a dask handshake (CI saw the fixture hang).
        self.folder = Path(tempfile.mkdtemp(prefix="tp-dask-"))
        self.scheduler_file = self.folder / "scheduler.json"
        self.scheduler = self._start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", ":0",
                                      "--scheduler-file", str(self.scheduler_file)])
        self.address = self._address()
        self.workers = [self.add_worker(f"w{i}") for i in range(workers)]
        self.wait_for(workers)

    def _address(self, timeout: float = 90.0) -> str:
        """The scheduler's address, once it has written it (it writes the file when it listens)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.scheduler.poll() is not None:
                raise RuntimeError(f"the dask scheduler exited with status {self.scheduler.returncode}")
            try:
                return str(json.loads(self.scheduler_file.read_text())["address"])
            except (OSError, ValueError, KeyError):
                time.sleep(0.1)
        raise TimeoutError(f"the dask scheduler wrote no address within {timeout:.0f} s")

    def _start(self, args: list[str]) -> subprocess.Popen:
        proc = subprocess.Popen(_dask_command() + args, env=self.env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(proc)
        return proc

    def add_worker(self, name: str) -> subprocess.Popen:
        # No nanny: the worker is this very process, so killing it loses the worker for good.
        return self._start(["worker", self.address, "--nthreads", "1", "--no-nanny", "--name", name,
                            "--dashboard-address", ":0", "--host", "127.0.0.1"])

    def wait_for(self, n: int, timeout: float = 90.0) -> None:
        from distributed import Client

        deadline = time.monotonic() + timeout
        client = Client(self.address, timeout=30, set_as_default=False)  # it listens: it wrote its address
        try:
            client.wait_for_workers(n, timeout=max(1.0, deadline - time.monotonic()))
        finally:
            client.close()

    def close(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(workers=2)
    yield c
    c.close()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return _corpus_dir(tmp_path_factory.mktemp("dask"))


@pytest.mark.parametrize("model", ["bpe", "unigram", "wordpiece"])
def test_counts_on_the_cluster_are_the_local_counts_byte_for_byte(cluster, corpus, tmp_path, model) -> None:
    local, remote = tmp_path / "local.tsv", tmp_path / "dask.tsv"
    common = [str(corpus), "--model", model, "--partition-mb", "0.004", "-q"]
    assert run(["count", *common, "-o", str(local)])[0] == 0
    assert run(["count", *common, "--engine", "dask", "--scheduler", cluster.address, "-o", str(remote)])[0] == 0
    assert remote.read_bytes() == local.read_bytes()
    assert len(local.read_text(encoding="utf-8").splitlines()) > 100


def test_trained_from_cluster_counts_equals_training_on_the_files(cluster, corpus, tmp_path) -> None:
    counts, a, b = tmp_path / "c.tsv", tmp_path / "a.json", tmp_path / "b.json"
    assert run(["count", str(corpus), "--engine", "dask", "--scheduler", cluster.address, "--partition-mb", "0.01",
                "--byte-level", "-o", str(counts), "-q"])[0] == 0
    train = ["--model", "bpe", "--byte-level", "--vocab-size", "500", "-q"]
    assert run(["train", "--from-counts", str(counts), *train, "-o", str(a)])[0] == 0
    assert run(["train", str(corpus), *train, "-o", str(b)])[0] == 0
    assert a.read_text() == b.read_text()


def test_a_local_cluster_of_worker_processes_counts_the_same(corpus, tmp_path) -> None:
    # In a process of its own, as people run it: the cluster's worker processes are spawned, and
    # spawning re-runs the parent's main module (under pytest, whatever a test left there).
    local, dask = tmp_path / "local.tsv", tmp_path / "dask.tsv"
    for extra, out in (([], local), (["--engine", "dask", "--workers", "2"], dask)):
        done = subprocess.run([sys.executable, "-m", "tokenizer_core", "count", str(corpus), "--partition-mb", "0.008",
                               *extra, "-o", str(out), "-q"], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    assert dask.read_bytes() == local.read_bytes()


def test_progress_reports_every_partition_and_byte(cluster, corpus) -> None:
    job = CountJob(CountSpec("bpe"), partitions(expand([str(corpus)]), part_bytes=8000))
    done: list[int] = []
    result = count_dask(job, scheduler=cluster.address, progress=lambda parts, nbytes, message: done.append(nbytes))
    assert list(result.counts.items()) == list(count_local(job).counts.items())
    assert done[-1] == job.total_bytes and len(done) == len(job.parts)  # every partition reported, bytes add up


def test_an_unreachable_scheduler_is_a_message(tmp_path, capsys, corpus) -> None:
    t0 = time.monotonic()
    code, _ = run(["count", str(corpus), "--engine", "dask", "--scheduler", f"tcp://127.0.0.1:{_free_port()}",
                   "--connect-timeout", "2", "-o", str(tmp_path / "o.tsv")])
    err = capsys.readouterr().err
    assert code == 2 and "cannot reach the Dask scheduler" in err and "Traceback" not in err
    assert time.monotonic() - t0 < 30 and not (tmp_path / "o.tsv").exists()


def test_bad_and_vanished_files_fail_the_job_with_their_names(cluster, tmp_path, capsys) -> None:
    (tmp_path / "good.txt").write_text("hug pug\n" * 2000, encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"hug pug\n" * 100 + b"caf\xe9\n")
    code, _ = run(["count", str(tmp_path / "good.txt"), str(tmp_path / "bad.txt"), "--engine", "dask",
                   "--scheduler", cluster.address, "-o", str(tmp_path / "o.tsv")])
    err = capsys.readouterr().err
    assert code == 2 and "bad.txt is not valid UTF-8" in err and "byte offset 803 (line 101)" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    job = CountJob(CountSpec("bpe"), partitions(expand([str(tmp_path / "good.txt")])))
    (tmp_path / "good.txt").unlink()
    with pytest.raises(TokenizerError, match="good.txt: the file is gone"):
        count_dask(job, scheduler=cluster.address)


def test_interrupting_cancels_every_task(cluster, tmp_path, corpus, capsys) -> None:
    from distributed import Client

    job = CountJob(CountSpec("bpe"), partitions(expand([str(corpus)]), part_bytes=500))
    assert len(job.parts) > 50

    def interrupt(parts: int, nbytes: int, message: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        count_dask(job, scheduler=cluster.address, progress=interrupt)
    client = Client(cluster.address, timeout=10, set_as_default=False)
    try:  # the scheduler forgets the job's tasks: none left waiting or running
        deadline = time.monotonic() + 30
        while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == 0
    finally:
        client.close()


def test_a_worker_killed_mid_job_is_replaced_by_the_other(cluster, tmp_path) -> None:
    # Last in this module: it leaves the cluster one worker short.
    big = tmp_path / "big.txt"
    words = [f"w{i}" for i in range(5000)]
    big.write_text("\n".join(" ".join(words[(i * 7 + j) % 5000] for j in range(40)) for i in range(40000)),
                   encoding="utf-8")
    job = CountJob(CountSpec("bpe"), partitions(expand([str(big)]), part_bytes=200_000))
    assert len(job.parts) > 40
    victim = cluster.workers[0]

    def kill_after_first(parts: int, nbytes: int, message: str) -> None:
        if parts == 1 and victim.poll() is None:
            os.killpg(victim.pid, signal.SIGKILL)

    result = count_dask(job, scheduler=cluster.address, progress=kill_after_first)
    assert victim.poll() is not None  # it really died while the job ran
    assert list(result.counts.items()) == list(count_local(job).counts.items())
