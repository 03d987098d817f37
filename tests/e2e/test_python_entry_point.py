"""The Python entry point, end to end (issue 56): a tiny run of bench.yml started through
plugin_utils/runner/bench.run (ansible-runner), whose callback sees the plays, the tasks, the load test's progress
lines and the recap as they happen, and whose result names the results directory and each host's outcome. Its
cluster draws its ports from a block of its own (20400-20499, below the blocks of hack/test.sh's two sessions and
beside test_kind_manifests.py's 20000-20099)."""
import json
import os
import time

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner.bench import run
from conftest import ROOT, SMALL_RUN, processes_mentioning

PORTS = (20400, 20499)
TINY = dict(SMALL_RUN, bench_nodes=5, bench_jobs=5, bench_pods_per_job=1, bench_pod_duration=1, bench_timeout=180)


def test_a_run_started_from_python_streams_its_events_and_returns_its_outcome(tmp_path, bench_vars):
    extravars = dict(bench_vars, **TINY, bench_port_range_start=PORTS[0], bench_port_range_end=PORTS[1],
                     # The load test's progress every second (10 by default), so that a tiny run shows some.
                     loadtest_progress_interval=1)
    events = []
    result = run(os.path.join(ROOT, "inventories", "local"), extravars,
                 on_event=lambda event: events.append((time.monotonic(), event)))
    finished = time.monotonic()
    lines = "\n".join(event.line for _, event in events)
    assert result.rc == 0 and result.status == "successful", lines[-4000:]

    # What it returns: the results directory the report was written into, and each host's outcome.
    run_dir = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"])
    assert result.results_dir == run_dir
    assert {host: (outcome.status, outcome.schedulers, outcome.failures) for host, outcome in result.hosts.items()} == {
        "localhost": ("ok", {"default": "done"}, [])}
    assert result.gate is None
    with open(os.path.join(result.results_dir, "localhost", "default", "summary.json"), encoding="utf-8") as handle:
        assert json.load(handle)["pods_bound"] == 5

    # What it streamed, as it happened (each event before the run returned): the plays and tasks in order, the load
    # test's progress lines for the host, the recap's counts last.
    kinds = [event.kind for _, event in events]
    plays = [event.text for _, event in events if event.kind == "play"]
    assert plays[-2:] == ["Report on a benchmark run", "Report the outcome of every host"], plays
    tasks = [event.text for _, event in events if event.kind == "task"]
    assert "Write the report" in tasks and tasks.index("Write the report") < tasks.index(
        "Show the recap of every host and scheduler")
    progress = [event for _, event in events if event.kind == "progress"]
    assert progress and {event.host for event in progress} == {"localhost"}, lines[-4000:]
    assert any(event.text.startswith("default: ") and "elapsed" in event.text for event in progress), lines[-4000:]
    assert "failed" not in kinds and "unreachable" not in kinds
    assert kinds[-1] == "stats" and events[-1][1].text.startswith("localhost ok=")
    assert all(moment <= finished for moment, _ in events)
    assert processes_mentioning(bench_vars["bench_workspace"]) == []
