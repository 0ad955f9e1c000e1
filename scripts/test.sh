#!/usr/bin/env bash
# Install everything the tests need on a fresh machine, then run the whole suite.
# Browser tests use Debian's Chromium (Playwright cannot download its own browser here), as its
# headless shell: the same Blink and V8 without the desktop browser, a third cheaper per page load.
set -euo pipefail
cd "$(dirname "$0")/.."
# Where the time went, on the log: seconds since the start at the end of each phase.
phase() { echo "[scripts/test.sh] ${SECONDS} s: $1"; }
# Debian's Chromium for the browser tests; Debian's PostgreSQL for the store's tests, which start a
# throwaway cluster of their own in a temporary folder (tests/_postgres.py). Only the browser and store
# tests need them: apt works in the background (mostly downloading) while pip installs and the kernel's
# sanitized tests run, which need neither (on a fresh machine that hides apt's minute or so).
NEED=""
[ -x /usr/bin/chromium ] || NEED="$NEED chromium"  # kaleido's plotly images are drawn by it
[ -x /usr/bin/chromium-headless-shell ] || NEED="$NEED chromium-headless-shell"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || NEED="$NEED postgresql"
APT=""
APT_LOG="$(mktemp)"
if [ -n "$NEED" ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; $SUDO true; fi  # a password is asked here, not in the background
  ( $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $NEED ) \
    > "$APT_LOG" 2>&1 &
  APT=$!
fi
python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
# The kernel's sanitized build (below) compiles meanwhile, on a core ruff leaves idle.
bash scripts/sanitized_kernel.sh --build-only > /dev/null 2>&1 &
SANITIZED_BUILD=$!
python -m ruff check .
# Python keeps compiled modules (and pytest its assert-rewritten tests) in __pycache__ folders, which git
# ignores: with PYTHONDONTWRITEBYTECODE set (some images set it) every worker, server and CLI
# subprocess of the run compiled the same sources again, and each pytest process rewrote all 280 test
# modules (10 s of its 17 s collection).
unset PYTHONDONTWRITEBYTECODE
# The compiled kernel built again under AddressSanitizer and UndefinedBehaviorSanitizer, with its
# tests and differential fuzzer run against that build (about a minute).
if ! wait "$SANITIZED_BUILD"; then
  bash scripts/sanitized_kernel.sh --build-only  # again in the foreground: its log says what failed
fi
bash scripts/sanitized_kernel.sh --prebuilt
phase "installed, linted, sanitized kernel tests passed"
if [ -n "$APT" ] && ! wait "$APT"; then
  cat "$APT_LOG"
  echo "apt-get could not install:$NEED" >&2
  exit 1
fi
rm -f "$APT_LOG"
# One worker per core; a file's tests stay together (they share module fixtures and run in order).
# --no-loadscope-reorder: xdist hands files out largest test count first unless told not to, which
# undid tests/conftest.py's order (the long browser files first) and left them for the run's end.
# The kernel's files that just ran on the sanitized build are not run again here (40 s less).
IGNORE=()
while read -r f; do IGNORE+=("--ignore=$f"); done < <(grep -v '^#' scripts/sanitized_tests.txt | grep .)
python -m pytest -n auto --dist loadfile --no-loadscope-reorder -m "not solo" "${IGNORE[@]}" "$@"
phase "the parallel tests passed"
# Then the tests that load the whole machine by design (twenty concurrent browser sessions), alone.
# (only tests/load/, where every solo test lives (tests/conftest.py refuses one elsewhere): collecting
# the whole suite again to pick two tests cost 15-20 s)
python -m pytest -p no:xdist -m solo tests/load "$@"
phase "the solo load tests passed"
