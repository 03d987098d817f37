"""The runtime contract: every runtime has a descriptor (module_utils/runtimes/) and implements start, stop and remove
and the optional entry points its descriptor names (playbooks/tasks/runtimes/<runtime>/), its start returns the one
cluster record and checks it, and the playbook that runs a scheduler tells no runtime apart."""
import os
import re

import pytest
import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils import runtimes
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import rules
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster import record

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNTIMES_DIR = os.path.join(ROOT, "playbooks", "tasks", "runtimes")


def _tasks(runtime, entry):
    with open(os.path.join(RUNTIMES_DIR, runtime, entry + ".yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def test_every_runtime_implements_its_entry_points():
    assert rules.RUNTIMES == runtimes.NAMES
    assert sorted(os.listdir(RUNTIMES_DIR)) == sorted(runtimes.NAMES)
    for runtime in runtimes.NAMES:
        entries = runtimes.ENTRY_POINTS + runtimes.get(runtime)["entries"]
        assert sorted(os.listdir(os.path.join(RUNTIMES_DIR, runtime))) == sorted(e + ".yml" for e in entries)


@pytest.mark.parametrize("runtime", runtimes.NAMES)
def test_every_descriptor_is_whole(runtime):
    assert runtimes.problems(runtimes.get(runtime)) == []


def test_a_descriptor_is_checked():
    broken = dict(runtimes.get(runtimes.NAMES[0]), entries=("warm",), holds_backlog="yes", disk={"etcd": "tmp"},
                  colour="red")
    del broken["guard_defaults"]
    name = broken["name"]
    assert runtimes.problems(broken) == [
        "runtime %s: the descriptor has no guard_defaults" % name,
        "runtime %s: the descriptor key colour is unknown" % name,
        "runtime %s: entry point warm is unknown (use %s)" % (name, ", ".join(runtimes.OPTIONAL_ENTRY_POINTS)),
        "runtime %s: holds_backlog is not true or false" % name,
        "runtime %s: disk path tmp is unknown (use workspace, cache_dir, docker_root)" % name]
    with pytest.raises(ValueError, match="no runtime capability"):
        runtimes.has(name, "holds_backlogs")


@pytest.mark.parametrize("entry", runtimes.OPTIONAL_ENTRY_POINTS)
def test_an_optional_entry_point_is_included_where_the_descriptor_says(entry):
    """Each optional entry point is included by runtime, when the descriptor names it, and by nothing else."""
    texts = {}
    for folder, _, files in os.walk(ROOT):
        if any(part in folder for part in (".git", ".venv", "results", "tests")):
            continue
        for name in files:
            if name.endswith(".yml"):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    texts[os.path.relpath(os.path.join(folder, name), ROOT)] = handle.read()
    includes = [path for path, text in texts.items() if "runtimes/{{ bench_runtime }}/%s.yml" % entry in text]
    assert len(includes) == 1, includes
    assert "bench_runtime | runtime_has('%s')" % entry in texts[includes[0]]


@pytest.mark.parametrize("runtime", runtimes.NAMES)
def test_start_returns_the_record_and_checks_it(runtime):
    tasks = _tasks(runtime, "start")
    described = [task for task in tasks if "bench_cluster" in (task.get("ansible.builtin.set_fact") or {})]
    assert len(described) == 1
    checks = [task["ansible.builtin.assert"]["that"] for task in tasks if "ansible.builtin.assert" in task]
    assert checks == ["bench_cluster | cluster_record_problems('%s') | length == 0" % runtime]
    value = described[0]["ansible.builtin.set_fact"]["bench_cluster"]
    # The external runtime writes its record out; the others add their name to their role's.
    if isinstance(value, dict):
        assert record.record_problems(value, runtime) == []
    else:
        assert "'runtime': '%s', 'owned': true" % runtime in value


def test_the_scheduler_run_dispatches_by_runtime_and_never_compares_it():
    with open(os.path.join(ROOT, "playbooks", "tasks", "run-scheduler.yml"), encoding="utf-8") as handle:
        text = handle.read()
    assert not re.search(r"bench_runtime\s*(==|!=|in\b)", text)
    for entry in runtimes.ENTRY_POINTS:
        assert "runtimes/{{ bench_runtime }}/%s.yml" % entry in text


def test_a_record_is_checked():
    good = {"runtime": "binary", "name": "bench", "dir": "/w/c", "kubeconfig": "/w/c/admin.kubeconfig",
            "audit_log": "/w/c/audit/audit.log", "logs_dir": "/w/c/logs", "owned": True, "ports": {}}
    assert record.record_problems(good, "binary") == []
    assert record.record_problems(dict(good, audit_log=""), "binary") == []
    assert record.record_problems({k: v for k, v in good.items() if k != "logs_dir"}, "binary") == [
        "the cluster record has no logs_dir (%s)" % record.RECORD["logs_dir"]]
    assert record.record_problems(dict(good, kubeconfig=""), "binary") == ["the cluster record's kubeconfig is empty"]
    assert record.record_problems(good, "kind") == ["the cluster record says runtime binary, the run's is kind"]
    assert record.record_problems(None, "kind")[0].startswith("the cluster record is None")


def test_the_architecture_documents_the_record():
    with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as handle:
        text = handle.read()
    section = text.split("## The runtime contract", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    documented = re.findall(r"^\| `([a-z_]+)` \|", section, re.M)
    assert documented == list(record.RECORD)


def test_a_components_shared_flags_come_from_one_table():
    from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster import components

    settings = {"audit_policy": "/p.yaml", "audit_log": "/a.log", "audit_log_maxsize": 1024, "audit_log_maxbackup": 10}
    assert components.component_flags("kube-apiserver", settings) == {
        "audit-policy-file": "/p.yaml", "audit-log-path": "/a.log", "audit-log-format": "json",
        "audit-log-maxsize": 1024, "audit-log-maxbackup": 10}
    # No audit log (bench_audit_policy off): none of its flags, its fixed format included.
    assert components.component_flags("kube-apiserver", dict.fromkeys(settings)) == {}
    # A setting a component's version has no flag for is left out.
    assert components.component_flags("kube-controller-manager", {"api_qps": 1, "api_burst": 2, "job_syncs": None}) == {
        "kube-api-qps": 1, "kube-api-burst": 2, "node-monitor-grace-period": components.NODE_MONITOR_GRACE}
    with pytest.raises(ValueError, match="etcd"):
        components.component_flags("etcd", {})


@pytest.mark.parametrize("template", ["roles/binary_cluster/templates/components.yaml.j2",
                                      "roles/kind_cluster/templates/kind-config.yaml.j2"])
def test_each_runtime_renders_the_api_servers_shared_flags(template):
    with open(os.path.join(ROOT, template), encoding="utf-8") as handle:
        text = handle.read()
    assert "'kube-apiserver' | component_flags(" in text
    assert "audit-log-maxsize" not in text


def test_the_architecture_documents_the_descriptor_and_its_entry_points():
    with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as handle:
        text = handle.read()
    section = text.split("### The runtime descriptor", 1)[1].split("\n### ", 1)[0]
    keys, entries = section.split("| entry |", 1)
    documented = [key for cell in re.findall(r"^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \|", keys, re.M)
                  for key in re.findall(r"`([a-z_]+)`", cell)]
    assert documented == [key for key in runtimes.KEYS if key != "name"]
    assert re.findall(r"^\| `([a-z_]+)` \|", entries, re.M) == list(runtimes.OPTIONAL_ENTRY_POINTS)
