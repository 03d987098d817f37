"""Check mode changes nothing at all (a second cluster start that changes nothing: test_external.py)."""
import os

from conftest import failure_text, run_playbook


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
