#!/usr/bin/env bash
# `make test`: the whole suite as two pytest sessions side by side, of about the same length.
#   - tests/e2e: the binary runtime on this machine (processes, mostly CPU), but for
#   - tests/unit, tests/lint, the e2e files in SIDE_E2E and tests/molecule: systemd containers
#     under Docker, mostly waiting on apt and container starts, in lanes that start as soon as this
#     session has collected its tests (pytest_collection_finish in tests/conftest.py) and run beside the rest of it.
# They share no port, workspace or container: each e2e run has its own workspace, and ports from its
# session's own blocks (SCHED_BENCH_E2E_PORT_BLOCKS), and molecule's hosts are containers.
# One session's output is printed as it runs, the other's when it ends; the exit code is
# non-zero when either fails (pytest's 5, "no tests collected", included). Arguments go to
# both sessions (e.g. --durations=30).
set -uo pipefail
cd "$(dirname "$0")/.."
python=${VENV:-.venv}/bin/python

# Which e2e files run beside: chosen by the two sessions' lengths in CI (the tail prints both); the
# fault and two-run tests mostly wait on a throttled scheduler, so they share the molecule session.
SIDE_E2E="tests/e2e/test_security.py tests/e2e/test_spine.py tests/e2e/test_faults.py tests/e2e/test_two_runs.py tests/e2e/test_exhaustion.py tests/e2e/test_shipped_scenarios.py"

side_log=$(mktemp -t sched-bench-test-side.XXXXXX.log)
# Each session its own temporary root: pytest prunes old numbered directories under its root
# and would otherwise race with the other session.
side_tmp=$(mktemp -d -t sched-bench-pytest-side.XXXXXX)
started=$SECONDS

# shellcheck disable=SC2086 # SIDE_E2E is a list of paths
(
  PYTEST_DEBUG_TEMPROOT=$side_tmp SCHED_BENCH_E2E_PORT_BLOCKS=25500-29999 \
    "$python" -m pytest tests/unit tests/lint $SIDE_E2E tests/molecule \
    -p no:cacheprovider "$@" >"$side_log" 2>&1
  rc=$?
  echo "== make test: the other session took $((SECONDS - started)) s ==" >>"$side_log"
  exit "$rc"
) &
side_pid=$!
# The side session is a subshell: stop its pytest too.
trap 'pkill -TERM -P "$side_pid" 2>/dev/null; kill "$side_pid" 2>/dev/null; wait "$side_pid" 2>/dev/null' INT TERM

# The kind runtime's test needs images built beforehand: `make test-kind` runs it.
ignored=(--ignore=tests/e2e/test_kind.py)
for path in $SIDE_E2E; do
  ignored+=("--ignore=$path")
done
SCHED_BENCH_E2E_PORT_BLOCKS=21000-25499 "$python" -m pytest tests/e2e "${ignored[@]}" "$@"
e2e_rc=$?
e2e_s=$((SECONDS - started))

echo "== make test: waiting for tests/unit, tests/lint, $SIDE_E2E and tests/molecule (run beside tests/e2e) =="
wait "$side_pid"
side_rc=$?
cat "$side_log"
rm -rf "$side_log" "$side_tmp"

# Both sessions' lengths at the end, where a CI log's tail shows them: the longer one sets the budget.
echo "== make test: tests/e2e took ${e2e_s} s =="
echo "== make test: tests/e2e exited $e2e_rc; the other session exited $side_rc =="
if [ "$e2e_rc" -ne 0 ] || [ "$side_rc" -ne 0 ]; then
  exit 1
fi
