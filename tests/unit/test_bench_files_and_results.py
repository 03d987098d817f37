"""module_utils/host/file_set.py (several files in one call: bench_files, bench_process) and library/bench_results.py
(one archive per result)."""
import gzip
import json
import os

import bench_results
import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import atomic as bench_atomic
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import file_set as bench_file_set


def test_modes_are_octal_strings_or_yaml_numbers():
    assert bench_file_set.parse_mode("0600", "mode") == 0o600
    assert bench_file_set.parse_mode(644, "mode") == 0o644
    with pytest.raises(ValueError, match=r"files\[2\].mode='rw' is not allowed: use an octal mode such as '0600'"):
        bench_file_set.parse_mode("rw", "files[2].mode")
    with pytest.raises(ValueError):
        bench_file_set.parse_mode("0689", "mode")


def test_a_file_is_written_only_when_its_content_or_mode_differ(tmp_path):
    path = str(tmp_path / "state.json")
    assert bench_file_set.needs_write(path, b"{}", 0o600)
    bench_atomic.write_atomically(path, b"{}", 0o600)
    assert open(path, "rb").read() == b"{}" and (os.stat(path).st_mode & 0o777) == 0o600
    assert not bench_file_set.needs_write(path, b"{}", 0o600)
    assert bench_file_set.needs_write(path, b"{ }", 0o600)
    assert bench_file_set.needs_write(path, b"{}", 0o644)
    assert sorted(os.listdir(tmp_path)) == ["state.json"]


def test_the_audit_log_and_its_backups_are_one_log_oldest_first(tmp_path):
    audit = tmp_path / "audit"
    audit.mkdir()
    (audit / "audit.log").write_text("c\n")
    (audit / "audit-2026-12-02T10-00-01.000.log").write_text("b\n")
    (audit / "audit-2026-12-02T09-00-00.000.log").write_text("a\n")
    (audit / "other.log").write_text("not ours\n")
    sources = bench_results.audit_files(str(audit / "audit.log"))
    assert [os.path.basename(path) for path in sources] == [
        "audit-2026-12-02T09-00-00.000.log", "audit-2026-12-02T10-00-01.000.log", "audit.log"]
    target = str(tmp_path / "audit.log.gz")
    bench_results.compress(sources, target)
    with gzip.open(target, "rt") as handle:
        assert handle.read() == "a\nb\nc\n"
    assert bench_results.audit_files(str(tmp_path / "none" / "audit.log")) == []


def test_the_results_to_bring_back_leave_out_hidden_files_and_unless_asked_the_audit_log(tmp_path):
    for name in ("summary.json", "pods.csv", ".progress.json", "audit.log.gz"):
        (tmp_path / name).write_text("x")
    (tmp_path / "sub").mkdir()
    assert bench_results.result_files(str(tmp_path), False) == ["pods.csv", "summary.json"]
    assert bench_results.result_files(str(tmp_path), True) == ["audit.log.gz", "pods.csv", "summary.json"]


def test_results_go_in_place_under_a_temporary_name_with_their_environment(tmp_path):
    dest = str(tmp_path / "run" / "localhost" / "default")
    seen = []

    def fill(partial):
        seen.append(sorted(os.listdir(os.path.dirname(partial))))
        open(os.path.join(partial, "summary.json"), "w").write("{}")

    audit_log = bench_results.audit_log_record(["summary.json"], "/ws/results/r/default/audit.log.gz")
    bench_results.put_in_place(dest, {"scheduler": "default"}, fill, audit_log)
    # While the files were written, only the .partial directory was there.
    assert seen == [["default.partial"]]
    assert sorted(os.listdir(dest)) == ["env.json", "summary.json"]
    env = json.load(open(os.path.join(dest, "env.json")))
    assert env == {"scheduler": "default",
                   "audit_log": {"fetched": False, "on_host": "/ws/results/r/default/audit.log.gz"}}
    assert bench_results.audit_log_record(["audit.log.gz", "summary.json"], "")["fetched"] is True
    assert sorted(os.listdir(os.path.dirname(dest))) == ["default"]


def test_a_file_set_creates_what_is_missing_and_writes_only_what_differs(tmp_path):
    cluster = str(tmp_path / "clusters" / "bench")
    files = bench_file_set.parse_files([
        {"path": cluster + "/state.json", "content": "{}"},
        {"path": cluster + "/audit-policy.yaml", "content": "rules: []\n", "mode": "0644"}])
    cleaned, created, written = bench_file_set.plan([cluster, cluster + "/run"], [], files)
    assert (cleaned, created, written) == ([], [cluster, cluster + "/run"], [cluster + "/state.json",
                                                                            cluster + "/audit-policy.yaml"])
    bench_file_set.apply(cleaned, created, written, files, 0o700)
    assert (os.stat(cluster).st_mode & 0o777) == 0o700
    assert (os.stat(cluster + "/audit-policy.yaml").st_mode & 0o777) == 0o644
    # A second time: nothing to do.
    assert bench_file_set.plan([cluster, cluster + "/run"], [], files) == ([], [], [])
    with pytest.raises(ValueError, match=r"files\[0\] needs a path and a content"):
        bench_file_set.parse_files([{"path": cluster + "/x"}])


def test_a_file_set_checks_its_input_before_it_changes_anything(tmp_path):
    target = tmp_path / "c1"
    entries = [{"path": str(target / "state.json"), "content": "{}"}]
    with pytest.raises(ValueError, match=r"directory_mode='rwx' is not allowed"):
        bench_file_set.write([str(target)], [], entries, "rwx")
    assert not target.exists()
    # Check mode says what would change, and changes nothing.
    assert bench_file_set.write([str(target)], [], entries, "0700", check_mode=True) == (
        [], [str(target)], [str(target / "state.json")])
    assert not target.exists()
    bench_file_set.write([str(target)], [], entries, "0700")
    assert (target / "state.json").read_text() == "{}"
