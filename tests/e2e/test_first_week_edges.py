"""The edges a lab trips on first (issue 68), through the real commands: a mistyped, unparsable or empty inventory
and a limit that matches nothing, refused in one line before any play starts anything; run()'s arguments refused
before ansible-runner starts; and results written by another version of the toolkit, as the report, the gate, the
history and the recomputation read them. No cluster is started: each case checks that nothing was."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result.schema import SCHEMA_VERSION
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner.bench import BenchArgumentError, run
from conftest import ROOT, processes_mentioning

sys.path.insert(0, os.path.join(ROOT, "tests"))
import recompute  # noqa: E402 - the second opinion, run as the tests run it

BIN = os.path.dirname(sys.executable)
ENV = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
           PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
FIXTURE = os.path.join(ROOT, "tests", "unit", "fixtures", "burst-backlog-default")
NEWER = "written by a newer toolkit (schema %d, this one reads up to %d)" % (SCHEMA_VERSION + 1, SCHEMA_VERSION)
MISTYPED = "Inventory inventories/lba does not exist (inventories/ holds lab, local): give -i an inventory file or directory"


@pytest.fixture
def places(tmp_path):
    """Where a run would write: a workspace and a results directory of this test's own, neither made yet."""
    return {"bench_workspace": str(tmp_path / "workspace"), "bench_results_dir": str(tmp_path / "results"),
            "bench_cache_dir": str(tmp_path / "cache")}


def playbook(name, inventory, places, *more):
    extra = json.dumps(places)
    return subprocess.run([os.path.join(BIN, "ansible-playbook"), name, "-i", inventory, "-e", extra, *more],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, check=False, timeout=300)


def assert_nothing_started(places, tmp_path):
    assert [name for name in places.values() if os.path.exists(name)] == []
    assert processes_mentioning(str(tmp_path)) == []


def one_line(output, line):
    """The refusal is one line of its own in ansible-playbook's output (Ansible's [ERROR] line carries it)."""
    return any(text.endswith(line) for text in output.splitlines())


@pytest.fixture
def inventories(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text("all:\n  hosts: [\n")
    empty = tmp_path / "empty.yml"
    empty.write_text("all:\n  children:\n    lab: {}\n")
    return {"broken": str(broken), "empty": str(empty)}


@pytest.mark.parametrize("entry", ["bench.yml", "playbooks/fetch.yml", "playbooks/teardown.yml"])
def test_a_mistyped_inventory_is_refused_in_one_line_before_any_play(entry, places, tmp_path):
    result = playbook(entry, "inventories/lba", dict(places, bench_run_id="r1"))
    assert result.returncode == 2, result.stdout[-3000:]
    assert one_line(result.stdout + result.stderr, MISTYPED), result.stdout[-3000:]
    # The first play stopped the run: no other play started, and the report's "No run to report on" never came.
    plays = [line.split("]")[0] + "]" for line in result.stdout.splitlines() if line.startswith("PLAY [")]
    assert plays == ["PLAY [Check the inventory]"], plays
    assert "No run to report on" not in result.stdout
    assert_nothing_started(places, tmp_path)


def test_an_inventory_that_does_not_parse_or_has_no_host_is_refused(inventories, places, tmp_path):
    result = playbook("bench.yml", inventories["broken"], places)
    assert result.returncode == 2
    assert one_line(result.stdout + result.stderr, "Inventory %s does not parse: YAML parsing failed: While parsing a "
                    "flow node did not find expected node content" % inventories["broken"]), result.stdout[-3000:]
    result = playbook("bench.yml", inventories["empty"], places)
    assert result.returncode == 2
    assert one_line(result.stdout + result.stderr, "Inventory %s has no host: bench.yml runs on every host of its "
                    "inventory; list at least one under all.hosts (inventories/lab/hosts.yml shows how)"
                    % inventories["empty"]), result.stdout[-3000:]
    assert_nothing_started(places, tmp_path)


def test_a_limit_that_matches_no_host_is_refused_by_ansible_playbook(places, tmp_path):
    result = playbook("bench.yml", "inventories/local", places, "--limit", "lab-07")
    assert result.returncode == 1
    assert one_line(result.stderr, "Specified inventory, host pattern and/or --limit leaves us with no hosts to "
                    "target."), result.stderr
    assert "PLAY [" not in result.stdout
    assert_nothing_started(places, tmp_path)


def runner_dirs():
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("kube-sched-bench-runner-")}


def refusals(inventories, tmp_path):
    afile = tmp_path / "a-file"
    afile.write_text("")
    return [
        (("inventories/lba",), {}, "inventory: " + MISTYPED),
        ((inventories["empty"],), {}, "inventory: Inventory %s has no host: bench.yml runs on every host of its "
                                      "inventory; list at least one under all.hosts (inventories/lab/hosts.yml shows "
                                      "how)" % inventories["empty"]),
        ((inventories["broken"],), {}, "inventory: Inventory %s does not parse: YAML parsing failed: While parsing a "
                                       "flow node did not find expected node content" % inventories["broken"]),
        (("inventories/local",), {"cmdline": "--limit lab-07"},
         "cmdline: --limit lab-07 matches no host of inventory inventories/local"),
        (("inventories/local",), {"playbook": "bnech.yml"}, "playbook: 'bnech.yml' is not a playbook of %s: give one "
                                                            "of bench.yml, playbooks/benchmark.yml" % ROOT),
        (("inventories/local", ["bench_jobs=5"]), {}, "extravars: a mapping of variable to value (such as "
                                                      "{'bench_jobs': 50}) or None, not list"),
        (("inventories/local",), {"private_data_dir": str(afile)},
         "private_data_dir: %s is not a directory: give an existing directory, or None for a temporary one" % afile),
        (("inventories/local",), {"private_data_dir": str(tmp_path / "none")},
         "private_data_dir: %s is missing: give an existing directory, or None for a temporary one"
         % (tmp_path / "none")),
        (("inventories/local",), {"timeout": 0}, "timeout: seconds above 0 or None, not 0"),
    ]


def test_run_refuses_each_bad_argument_before_ansible_runner_starts(inventories, places, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    before = runner_dirs()
    for args, kwargs, line in refusals(inventories, tmp_path):
        arguments = (args[0], args[1] if len(args) > 1 else places)
        with pytest.raises(BenchArgumentError) as raised:
            run(*arguments, **kwargs)
        assert str(raised.value).startswith(line), (str(raised.value), line)
        assert "\n" not in str(raised.value)
        assert isinstance(raised.value, ValueError) and raised.value.argument == line.split(":")[0]
    assert runner_dirs() == before
    assert_nothing_started(places, tmp_path)


def result_of(run_dir, host, scheduler, schema_version=None, drop=()):
    """A copy of a real stored result, its summary.json's schema_version set (None: as stored)."""
    target = os.path.join(run_dir, host, scheduler)
    shutil.copytree(FIXTURE, target)
    path = os.path.join(target, "summary.json")
    with open(path, encoding="utf-8") as handle:
        summary = json.load(handle)
    if schema_version is not None:
        summary["schema_version"] = schema_version
    for key in drop:
        summary.pop(key)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(summary, handle)
    return target


@pytest.fixture
def mixed_results(tmp_path):
    """A run whose results three toolkits wrote: this one's, a newer one's, an older one's; and one corrupt."""
    results = tmp_path / "shared-results"
    run_dir = str(results / "20261207T090000Z")
    result_of(run_dir, "lab-01", "default")
    result_of(run_dir, "lab-02", "default", SCHEMA_VERSION + 1)
    result_of(run_dir, "lab-03", "default", 2, drop=("share_of_host_ceiling",))
    result_of(run_dir, "lab-04", "default", "three")
    return results, run_dir


def test_the_report_and_the_gate_read_results_of_other_toolkits_by_their_version(mixed_results, tmp_path):
    _, run_dir = mixed_results
    gate = json.dumps({"bench_gate": {"*": {"throughput_pods_per_s": ">= 1"}}})
    result = subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/report.yml", "-e",
                             "bench_report_run_dir=%s" % run_dir, "-e", gate], cwd=ROOT, env=ENV,
                            capture_output=True, text=True, check=False, timeout=300)
    # The gate judged what this toolkit can read and refused the newer result, so the report play fails.
    assert result.returncode == 2, result.stdout[-3000:]
    refused = "gate refused: host lab-02, scheduler default in run 20261207T090000Z was %s; not judged" % NEWER
    assert refused in " ".join(result.stdout.split())
    with open(os.path.join(run_dir, "report.json"), encoding="utf-8") as handle:
        report = json.load(handle)
    assert report["schema_version"] == 1
    assert [entry["line"] for entry in report["gate"]["refused"]] == [refused]
    checked = {(entry["host"], entry.get("passed")) for entry in report["gate"].get("missed", [])}
    assert ("lab-02", False) not in checked
    with open(os.path.join(run_dir, "report.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "lab-02 / default: newer: " + NEWER in markdown
    assert "lab-04 / default: unreadable: summary.json's schema_version 'three' is not a version (1 to %d)" % (
        SCHEMA_VERSION) in markdown
    # The older result's figures are read; the one its version lacks says which version wrote it.
    assert "n/a (schema 2)" in markdown
    with open(os.path.join(run_dir, "gate.junit.xml"), encoding="utf-8") as handle:
        assert NEWER in handle.read()


def test_the_history_lists_a_newer_result_apart_and_rebuilds_a_newer_database(mixed_results):
    results, _ = mixed_results
    database = results / "history.sqlite"
    connection = sqlite3.connect(str(database))
    connection.execute("CREATE TABLE future (x)")
    connection.execute("PRAGMA user_version = 2")
    connection.commit()
    connection.close()
    result = subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/history.yml", "-e",
                             "bench_results_dir=%s" % results], cwd=ROOT, env=ENV, capture_output=True, text=True,
                            check=False, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:]
    assert ("history.sqlite was written by a newer toolkit (database schema 2, this one reads up to 1): rebuilt "
            "from the result files") in " ".join(result.stdout.replace("'", "").split())
    connection = sqlite3.connect(str(database))
    try:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == 1
        rows = dict(connection.execute("SELECT host, status || ': ' || reason FROM results").fetchall())
        # Only this toolkit's and the older one's results are on trend lines.
        lines = {host for (host,) in connection.execute(
            "SELECT host FROM results WHERE configuration IS NOT NULL AND repeats_complete > 0")}
    finally:
        connection.close()
    assert rows["lab-02"] == "newer: " + NEWER
    assert rows["lab-04"].startswith("unreadable: summary.json's schema_version 'three' is not a version")
    assert lines == {"lab-01", "lab-03"}


def test_the_recomputation_refuses_a_newer_summary_in_one_line(mixed_results):
    _, run_dir = mixed_results
    for host, expected in (("lab-02", [NEWER]), ("lab-01", [])):
        directory = os.path.join(run_dir, host, "default")
        with open(os.path.join(directory, "summary.json"), encoding="utf-8") as handle:
            assert recompute.differences(directory, json.load(handle)) == expected
