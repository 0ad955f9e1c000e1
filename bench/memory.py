"""A process's own peak resident memory, for the benchmarks that compare it across processes."""

from __future__ import annotations

import resource


def peak_rss_mb() -> float:
    """This process's own peak resident memory in MB: ``VmHWM``, or ``ru_maxrss`` where there is no
    ``/proc`` (where it may include the parent's peak).

    >>> peak_rss_mb() > 0
    True
    """
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
