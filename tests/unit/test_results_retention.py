"""What a host keeps of its runs' results (bench_keep_runs): the record of a verified fetch (bench_results), the pure
decision (module_utils/host/retention.py) and the module that prunes (bench_prune_results)."""
import json
import os
import tarfile

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import retention
from test_bench_direct_run import run_directly

MARKER = retention.MARKER


def marker(**sizes):
    return {"fetched_to": "results/r/localhost/default", "fetched_at": "2026-12-06T00:00:00Z",
            "files": {name.replace("_", "."): {"size": size, "sha256": "x"} for name, size in sizes.items()}}


def run(name, time, *dirs, strange=()):
    return {"name": name, "time": time, "dirs": list(dirs), "strange": list(strange)}


HELD = ("default", {"summary.json": 10, "pods.csv.gz": 20}, marker(summary_json=10, pods_csv_gz=20))


def test_the_newest_runs_stay_and_an_older_one_goes_only_when_the_controller_holds_all_of_it():
    runs = [run("r1", 100, HELD), run("r2", 200, ("default", {"summary.json": 10}, None)), run("r3", 300, HELD),
            run("r4", 400, HELD)]
    pruned, kept = retention.decide(runs, 2)
    assert [name for name, _ in pruned] == ["r1"]
    assert dict(kept) == {"r4": "one of the newest 2", "r3": "one of the newest 2",
                          "r2": "default: no record of a complete fetch"}
    # 0: none once fetched, the newest too; the one whose fetch failed stays.
    assert [name for name, _ in retention.decide(runs, 0)[0]] == ["r4", "r3", "r1"]
    # More to keep than there are runs: nothing goes.
    assert retention.decide(runs, 10)[0] == []


def test_runs_of_the_same_time_are_ordered_by_name():
    pruned, kept = retention.decide([run("b", 5, HELD), run("a", 5, HELD)], 1)
    assert pruned == [("a", "held by the controller")] and kept == [("b", "one of the newest 1")]


def test_what_keeps_an_older_run():
    on_disk = {"summary.json": 10, "pods.csv.gz": 20}
    assert retention.unheld(on_disk, marker(summary_json=10, pods_csv_gz=20)) == []
    assert retention.unheld(on_disk, None) == ["no record of a complete fetch"]
    assert retention.unheld(on_disk, marker(summary_json=10)) == ["pods.csv.gz not fetched"]
    assert retention.unheld(on_disk, marker(summary_json=10, pods_csv_gz=21)) == ["pods.csv.gz changed since its fetch"]
    assert retention.unheld({"summary.json": 10}, marker(summary_json=10, pods_csv_gz=20)) == [
        "pods.csv.gz gone since its fetch"]
    # The audit log the controller did not fetch stays on the host only, and goes with its run.
    assert retention.unheld(dict(on_disk, **{"audit.log.gz": 99}), marker(summary_json=10, pods_csv_gz=20)) == []
    # Fetched (bench_fetch_audit_log), it is checked like any other file.
    assert retention.unheld({"audit.log.gz": 99}, marker(audit_log_gz=98)) == ["audit.log.gz changed since its fetch"]
    # A directory without visible files (the run directory itself, a scheduler's directory holding only its repeats).
    assert retention.unheld({}, None) == []
    # A transfer archive left by a fetch that failed, beside the result directories.
    pruned, kept = retention.decide([run("r1", 1, ("", {"default.tar": 30}, None), HELD)], 0)
    assert pruned == [] and kept == [("r1", ".: no record of a complete fetch")]
    pruned, kept = retention.decide([run("r1", 1, HELD, strange=["default/link"])], 0)
    assert pruned == [] and kept == [("r1", "default/link: not a regular file or directory")]


def test_the_copy_and_the_host_files_compare_by_size_and_checksum():
    host = {"a": {"size": 1, "sha256": "s1"}, "b": {"size": 2, "sha256": "s2"}}
    assert retention.differences(host, dict(host)) == []
    assert retention.differences(host, {"a": {"size": 1, "sha256": "other"}, "b": host["b"], "c": host["b"]}) == [
        "a differs (sha256)", "c unexpected"]
    assert retention.differences(host, {"b": {"size": 3, "sha256": "s2"}}) == ["a missing", "b has 3 bytes, not 2"]
    # Sizes alone when no checksum is expected.
    assert retention.differences({"a": {"size": 1}}, {"a": {"size": 1, "sha256": "s"}}) == []


def write(path, text, mtime=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def result_dir(path, mtime, held=True, extra=None):
    """A scheduler's results on the host, with the record of its fetch (``held``)."""
    write(os.path.join(path, "summary.json"), "{}", mtime)
    write(os.path.join(path, "pods.csv.gz"), "pods", mtime + 1)
    write(os.path.join(path, ".progress.json"), "{}")
    write(os.path.join(path, "audit.log.gz"), "audit log kept on the host", mtime + 2)
    if held:
        files = retention.file_records(path, ["pods.csv.gz", "summary.json"])
        write(os.path.join(path, MARKER), json.dumps(retention.marker_record(files, "ctl", "now")))
    for name, text in (extra or {}).items():
        write(os.path.join(path, name), text, mtime + 3)


def test_a_run_directory_is_read_with_its_repeats_its_time_and_its_size(tmp_path):
    run_dir = tmp_path / "r1"
    result_dir(str(run_dir / "default"), 1000)
    result_dir(str(run_dir / "default" / "repeat-2"), 1100, held=False)
    os.symlink("/etc", str(run_dir / "default" / "etc"))
    surveyed = retention.survey_run(str(run_dir))
    assert surveyed["name"] == "r1" and surveyed["time"] == 1000
    dirs = {path: (files, marker is not None) for path, files, marker in surveyed["dirs"]}
    assert dirs == {"": ({}, False), "default": ({"summary.json": 2, "pods.csv.gz": 4, "audit.log.gz": 26}, True),
                    "default/repeat-2": ({"summary.json": 2, "pods.csv.gz": 4, "audit.log.gz": 26}, False)}
    assert surveyed["strange"] == ["default/etc"]
    marker_bytes = os.path.getsize(str(run_dir / "default" / MARKER))
    assert surveyed["bytes"] == 2 * (2 + 4 + 26 + 2) + marker_bytes
    # Hidden entries and plain files of the results directory are no runs; a missing one has none.
    write(str(tmp_path / ".hidden" / "x"), "x")
    write(str(tmp_path / "notes.txt"), "x")
    assert [found["name"] for found in retention.survey(str(tmp_path))] == ["r1"]
    assert retention.survey(str(tmp_path), {"r1"}) == []
    assert retention.survey(str(tmp_path / "absent")) == []


def prune(args, check=False):
    return run_directly("bench_prune_results", dict(args, _ansible_check_mode=check))


def test_the_module_prunes_only_held_runs_beyond_the_newest_and_says_so_in_one_line(tmp_path):
    results = tmp_path / "results"
    result_dir(str(results / "r1" / "default"), 1000)                      # old, held: goes
    result_dir(str(results / "r2" / "default"), 2000, held=False)          # old, its fetch failed: stays
    result_dir(str(results / "r3" / "default"), 3000, extra={"late.txt": "written after the fetch"})
    result_dir(str(results / "r4" / "default"), 4000)                      # the newest: stays
    args = {"path": str(results), "keep": 1}
    code, result = prune(args, check=True)
    assert code == 0 and result["changed"] is True and result["pruned"] == ["r1"], result
    assert sorted(os.listdir(str(results))) == ["r1", "r2", "r3", "r4"]
    assert result["msg"].startswith("would prune 1 run (0.0 MB) of %s, kept 3; older, kept: " % results), result["msg"]
    assert "r2 (default: no record of a complete fetch)" in result["msg"]
    assert "r3 (default: late.txt not fetched)" in result["msg"]
    code, result = prune(args)
    assert code == 0 and result["pruned"] == ["r1"] and result["pruned_bytes"] > 0
    assert sorted(os.listdir(str(results))) == ["r2", "r3", "r4"]
    assert result["kept"]["r4"] == "one of the newest 1"
    code, result = prune(args)
    assert code == 0 and result["changed"] is False and result["pruned"] == []


def test_nothing_is_pruned_while_a_run_holds_the_lock_nor_in_the_controllers_results(tmp_path):
    results = tmp_path / "results"
    result_dir(str(results / "r1" / "default"), 1000)
    result_dir(str(results / "r2" / "default"), 2000)
    lock = tmp_path / "run.lock"
    lock.write_text("{}")
    code, result = prune({"path": str(results), "keep": 0, "skip_if_exists": str(lock)})
    assert code == 0 and result["changed"] is False and result["skipped"] == "%s exists: a run may be writing there" % lock
    # A host that is the controller, with its workspace's results where the controller keeps its own.
    code, result = prune({"path": str(results), "keep": 0, "never_in": [str(tmp_path)]})
    assert result["pruned"] == [] and result["msg"] == "pruned nothing: %s is in %s, which is never pruned" % (
        results, tmp_path)
    # The controller's results inside the host's: that run directory stays, whatever it holds.
    code, result = prune({"path": str(results), "keep": 0, "never_in": [str(results / "r1" / "default")]})
    assert result["pruned"] == ["r2"] and sorted(os.listdir(str(results))) == ["r1"]
    code, result = prune({"path": str(results), "keep": -1})
    assert code == 1 and result["msg"] == "keep=-1 is not allowed: use a whole number of runs, 0 or more"
    code, result = prune({"path": str(results), "keep": 1, "typo": 1})
    assert code == 1 and "typo" in result["msg"]


def host_results(tmp_path):
    out = tmp_path / "ws" / "results" / "r1" / "default"
    write(str(out / "summary.json"), '{"complete": true}')
    write(str(out / "pods.csv.gz"), "pods")
    write(str(out / "audit.log.gz"), "the audit log")
    return out


def test_a_host_that_is_the_controller_records_the_copy_it_verified(tmp_path):
    out = host_results(tmp_path)
    dest = tmp_path / "results" / "r1" / "localhost" / "default"
    code, result = run_directly("bench_results", {"state": "packed", "output_dir": str(out), "dest": str(dest),
                                                  "environment": {"scheduler": "default"}})
    assert code == 0, result
    assert sorted(os.listdir(str(dest))) == ["env.json", "pods.csv.gz", "summary.json"]
    with open(str(out / MARKER), encoding="utf-8") as handle:
        record = json.load(handle)
    assert record["fetched_to"] == str(dest)
    assert record["files"] == retention.file_records(str(dest), ["pods.csv.gz", "summary.json"]) == result["held"]
    assert set(result["checksums"]) == {"pods.csv.gz", "summary.json"}
    # The run is now held; the audit log that stayed on the host goes with it.
    assert retention.decide(retention.survey(str(tmp_path / "ws" / "results")), 0)[0] == [
        ("r1", "held by the controller")]


def test_a_remote_host_records_the_copy_only_once_the_controller_verified_it(tmp_path):
    out = host_results(tmp_path)
    archive = str(out) + ".tar"
    code, packed = run_directly("bench_results", {"state": "packed", "output_dir": str(out), "archive": archive})
    assert code == 0 and sorted(packed["checksums"]) == ["pods.csv.gz", "summary.json"]
    # A copy that differs from what the host packed is refused before it is put in place.
    dest = tmp_path / "ctl" / "default"
    wrong = dict(packed["checksums"], **{"pods.csv.gz": "0" * 64})
    code, result = run_directly("bench_results", {"state": "unpacked", "archive": archive, "dest": str(dest),
                                                  "expected": wrong})
    assert code == 1 and result["msg"] == "%s: the copy differs from the host's results: pods.csv.gz differs (sha256)" % dest
    assert not dest.exists() and os.path.isdir(str(dest) + ".partial") and os.path.exists(archive)
    os.rename(str(dest) + ".partial", str(tmp_path / "ctl" / "refused"))
    # A file the host packed and the archive lacks is refused too.
    code, result = run_directly("bench_results", {"state": "unpacked", "archive": archive, "dest": str(dest),
                                                  "expected": dict(packed["checksums"], **{"timeline.csv": "1" * 64})})
    assert code == 1 and result["msg"].endswith("timeline.csv missing")
    os.rename(str(dest) + ".partial", str(tmp_path / "ctl" / "refused-2"))
    code, unpacked = run_directly("bench_results", {"state": "unpacked", "archive": archive, "dest": str(dest),
                                                    "expected": packed["checksums"]})
    assert code == 0 and sorted(unpacked["held"]) == ["pods.csv.gz", "summary.json"]
    # The controller consumed its copy of the archive; the host's own is still there, here in the same place.
    write(archive, "the host's transfer archive")
    # What the controller holds must name every result file with its size, else no record.
    partial = {"summary.json": unpacked["held"]["summary.json"]}
    code, result = run_directly("bench_results", {"state": "fetched", "output_dir": str(out), "held": partial,
                                                  "dest": str(dest), "archive": archive})
    assert code == 1 and result["msg"] == "%s: the controller's copy (%s) is not all of the results: pods.csv.gz missing" % (
        out, dest)
    assert not (out / MARKER).exists()
    code, result = run_directly("bench_results", {"state": "fetched", "output_dir": str(out), "held": unpacked["held"],
                                                  "dest": str(dest), "archive": archive, "_ansible_check_mode": True})
    assert code == 0 and not (out / MARKER).exists() and os.path.exists(archive)
    code, result = run_directly("bench_results", {"state": "fetched", "output_dir": str(out), "held": unpacked["held"],
                                                  "dest": str(dest), "archive": archive})
    assert code == 0 and (out / MARKER).exists() and not os.path.exists(archive)
    with open(str(out / MARKER), encoding="utf-8") as handle:
        assert json.load(handle)["files"] == unpacked["held"]


def test_an_archive_of_the_old_form_without_checksums_still_unpacks(tmp_path):
    out = host_results(tmp_path)
    archive = str(tmp_path / "default.tar")
    with tarfile.open(archive, "w") as tar:
        tar.add(str(out / "summary.json"), arcname="summary.json")
    dest = tmp_path / "ctl" / "default"
    code, result = run_directly("bench_results", {"state": "unpacked", "archive": archive, "dest": str(dest)})
    assert code == 0 and sorted(result["held"]) == ["summary.json"]
