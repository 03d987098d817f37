"""The binary runtime's roles change nothing on a second run, and check mode changes nothing at all."""
import os

from conftest import failure_text, processes_mentioning, run_playbook


def changed(runner):
    return (runner.stats or {}).get("changed", {}).get("localhost", 0)


def test_second_cluster_start_changes_nothing(tmp_path, bench_vars):
    cluster = dict(bench_vars, bench_cluster_state="present")
    first = run_playbook(tmp_path, "playbooks/cluster.yml", cluster, label="first")
    assert first.rc == 0, failure_text(first)
    try:
        assert changed(first) > 0
        second = run_playbook(tmp_path, "playbooks/cluster.yml", cluster, label="second")
        assert second.rc == 0, failure_text(second)
        assert changed(second) == 0, [
            e["event_data"]["task"] for e in second.events
            if e.get("event") == "runner_on_ok" and e["event_data"].get("res", {}).get("changed")]
    finally:
        down = run_playbook(tmp_path, "playbooks/cluster.yml", dict(bench_vars, bench_cluster_state="absent"),
                            label="down")
    assert down.rc == 0, failure_text(down)
    assert processes_mentioning(bench_vars["bench_workspace"]) == []
    again = run_playbook(tmp_path, "playbooks/cluster.yml", dict(bench_vars, bench_cluster_state="absent"),
                         label="down-again")
    assert again.rc == 0 and changed(again) == 0, failure_text(again)


def test_check_mode_reports_and_changes_nothing(tmp_path, bench_vars):
    cache = tmp_path / "fresh-cache"
    runner = run_playbook(tmp_path, "bench.yml", dict(bench_vars, bench_cache_dir=str(cache)),
                          cmdline="--check", label="check")
    assert runner.rc == 0, failure_text(runner)
    said = " ".join(str(e["event_data"].get("res", {}).get("msg", "")) for e in runner.events
                    if e.get("event") in ("runner_on_ok", "runner_item_on_ok"))
    assert "would build" in said and "would start a binary cluster" in said
    for path in (str(cache), bench_vars["bench_workspace"], bench_vars["bench_results_dir"]):
        assert not os.path.exists(path), path
