"""What hosts keep (issue 57, bench_keep_runs): three runs at 1 leave the host's workspace one run and the controller
all three, a run whose fetch failed keeps the host's copy until `make fetch` brings it back, and the audit log that
stayed on the host goes with its run."""
import json
import os
import shutil
import time

from conftest import failure_text, processes_mentioning, run_playbook, task_results
from test_faults import start_async
from test_two_runs import lock_holder

SMALL = dict(bench_nodes=5, bench_jobs=5, bench_pods_per_job=1, bench_pod_duration=1, bench_timeout=180,
             bench_keep_runs=1)


def listing(path):
    return sorted(os.listdir(path)) if os.path.isdir(path) else []


def read_json(*parts):
    with open(os.path.join(*parts), encoding="utf-8") as handle:
        return json.load(handle)


def prune_line(runner):
    """The one line the run printed about what the host keeps."""
    shown = task_results(runner, "Show what the host keeps of its runs' results")
    assert len(shown) == 1, failure_text(runner)
    return shown[0]["res"]["msg"]


def test_hosts_keep_the_newest_run_and_every_run_the_controller_lacks(tmp_path, bench_vars):
    started = time.monotonic()
    base = dict(bench_vars, **SMALL)
    first, second, third = (bench_vars["bench_run_id"] + suffix for suffix in ("-1", "-2", "-3"))
    on_host = os.path.join(bench_vars["bench_workspace"], "results")
    controller = bench_vars["bench_results_dir"]

    # 1: fetched, verified, recorded on the host; the audit log stays beside the results there, not in the record.
    runner = run_playbook(tmp_path, "bench.yml", dict(base, bench_run_id=first), label="first")
    assert runner.rc == 0, failure_text(runner)
    assert listing(on_host) == [first]
    host_dir = os.path.join(on_host, first, "default")
    ctl_dir = os.path.join(controller, first, "localhost", "default")
    record = read_json(host_dir, ".fetched.json")
    assert record["fetched_to"] == ctl_dir
    assert {name: entry["size"] for name, entry in record["files"].items()} == {
        name: os.path.getsize(os.path.join(ctl_dir, name)) for name in os.listdir(ctl_dir) if name != "env.json"}
    assert "audit.log.gz" in os.listdir(host_dir) and "audit.log.gz" not in record["files"]
    assert ".fetched.json" not in os.listdir(ctl_dir)

    # 2: the controller's destination appears while the run goes on (after its checks found the run new), so that
    # the fetch refuses to overwrite it: no record on the host, whose copy stays; the first run, held, goes.
    thread, runner = start_async(tmp_path, dict(base, bench_run_id=second), "second")
    deadline = time.monotonic() + 600
    while lock_holder(bench_vars) != second:
        assert time.monotonic() < deadline and runner.status not in ("successful", "failed"), failure_text(runner)
        time.sleep(0.2)
    blocker = os.path.join(controller, second, "localhost", "default")
    os.makedirs(blocker)
    with open(os.path.join(blocker, "not-these-results"), "w", encoding="utf-8") as handle:
        handle.write("in the way of the fetch\n")
    thread.join(900)
    assert runner.rc != 0
    failed = read_json(controller, second, "localhost", "failed.json")
    assert "results not fetched: %s exists already: results are never overwritten" % blocker in failed["msg"], failed
    assert listing(on_host) == [second]
    assert ".fetched.json" not in os.listdir(os.path.join(on_host, second, "default"))
    assert prune_line(runner).startswith("pruned 1 run ("), prune_line(runner)
    assert prune_line(runner).endswith(" of %s, kept 1 (bench_keep_runs=1)" % on_host), prune_line(runner)

    # 3: the newest stays, and so does the second, which the controller does not hold.
    runner = run_playbook(tmp_path, "bench.yml", dict(base, bench_run_id=third), label="third")
    assert runner.rc == 0, failure_text(runner)
    assert listing(on_host) == [second, third]
    assert prune_line(runner) == (
        "pruned 0 runs (0.0 MB) of %s, kept 2; older, kept: %s (default: no record of a complete fetch) "
        "(bench_keep_runs=1)" % (on_host, second))

    # `make fetch` once the way is clear: the second run's results come back, are recorded, and the host lets them go.
    shutil.rmtree(blocker)
    fetch = run_playbook(tmp_path, "playbooks/fetch.yml", dict(base, bench_run_id=second), label="fetch")
    assert fetch.rc == 0, failure_text(fetch)
    assert listing(on_host) == [third]
    assert prune_line(fetch).startswith("pruned 1 run ("), prune_line(fetch)
    # The controller holds all three, whole; its results are never pruned.
    for run_id in (first, second, third):
        assert read_json(controller, run_id, "localhost", "default", "summary.json")["pods_bound"] == SMALL["bench_jobs"]
    assert processes_mentioning(bench_vars["bench_workspace"]) == []
    print("three runs and a fetch took %.0f s" % (time.monotonic() - started))
