"""A throwaway PostgreSQL server for the tests: Debian's ``postgresql`` binaries (the test command
installs them), a new cluster in a temporary folder, on a free loopback port, stopped and removed
afterwards. As root (CI), the server runs as the ``postgres`` user the package creates, since
PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

from bench.app_server import free_port


def binaries() -> Optional[Path]:
    """The folder of ``initdb``/``pg_ctl`` (the newest installed version), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


def _as_owner(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[str]:
    """Yield the SQLAlchemy-style URL of a fresh, empty PostgreSQL database; stop it afterwards."""
    bin_dir = binaries()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="tp-pg-"))
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    port = free_port()
    subprocess.run(_as_owner([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                              "-E", "UTF8", "--no-sync"]), check=True, capture_output=True)
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(_as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"),
                              "-w", "-t", "60", "start"]), check=True, capture_output=True)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]),
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
