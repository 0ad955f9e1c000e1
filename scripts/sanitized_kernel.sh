#!/usr/bin/env bash
# Builds the compiled kernel a second time under AddressSanitizer and UndefinedBehaviorSanitizer
# (gcc's -fsanitize=address,undefined; the root setup.py with TOKENIZER_KERNEL_SANITIZE=1) into
# build/sanitized/, then runs the kernel's tests and its differential fuzzer against that build.
# Any sanitizer report aborts the process that made it, which fails the test that ran it.
# Extra arguments go to pytest. Called by scripts/test.sh; runs alone too:
#   bash scripts/sanitized_kernel.sh
# --build-only builds and stops; --prebuilt runs the tests on the build already there (scripts/test.sh
# builds while apt and ruff run: the compiler uses one core for ~15 s, which then costs nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="$PWD/build/sanitized"
MODE="${1:-}"
if [ "$MODE" = "--build-only" ] || [ "$MODE" = "--prebuilt" ]; then shift; fi
if [ "$MODE" != "--prebuilt" ]; then
  rm -rf "$OUT"
  mkdir -p "$OUT"
  if ! TOKENIZER_KERNEL_SANITIZE=1 python setup.py -q build_ext --build-temp "$OUT/tmp" \
          --build-lib "$OUT/lib" >"$OUT/build.log" 2>&1; then
    cat "$OUT/build.log"
    echo "the sanitized kernel did not build" >&2
    exit 1
  fi
fi
[ "$MODE" = "--build-only" ] && exit 0
if ! ls "$OUT"/lib/tokenizer_kernel*.so >/dev/null 2>&1; then
  echo "no sanitized build in $OUT/lib (run without --prebuilt first)" >&2
  exit 1
fi
# Python itself is not built with ASan: its runtime must be loaded first, before any library.
export LD_PRELOAD="$(gcc -print-file-name=libasan.so)"
# Leaks are not checked (the interpreter keeps much alive at exit, by design); every other report
# stops the process with a stack trace. PYTHONMALLOC=malloc puts Python's own small objects under
# ASan's eye too (pymalloc's arenas would hide overflows into them).
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:print_summary=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export PYTHONMALLOC=malloc
export PYTHONPATH="$OUT/lib${PYTHONPATH:+:$PYTHONPATH}"
# tests/kernel/test_kernel_fuzz.py checks that this build, not the installed one, is the one loaded.
export TOKENIZER_KERNEL_EXPECT="$OUT/lib"
# --capture=sys: pytest leaves file descriptor 2 alone, so a report reaches the terminal (captured at
# the descriptor, it would vanish with the process the sanitizer stops).
# The files are listed in scripts/sanitized_tests.txt: scripts/test.sh leaves them out of its main run,
# since this run of them, on the sanitized build, checks all they check and memory errors besides.
mapfile -t FILES < <(grep -v '^#' scripts/sanitized_tests.txt | grep .)
# --dist worksteal: a worker that runs out takes tests queued for the other (the fuzzer's seeds and
# the long-text checks are long; handed out up front they left one core idle for half a minute).
python -m pytest -p no:cacheprovider --capture=sys -n 2 --dist worksteal -q "${FILES[@]}" "$@"
