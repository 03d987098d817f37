"""The scheduler descriptors (module_utils/schedulers/): complete, consistent with the task files of each runtime
they name, and the one source the rules, the capacity model, the version matrix and the roles read."""
import os

import pytest
import scheduler_descriptors as plugin
import yaml
from ansible.errors import AnsibleFilterError
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers
from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import capacity as sched_capacity
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import rules as sched_rules
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads as sched_workloads
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import knob_checks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TASKS = os.path.join(ROOT, "roles", "scheduler", "tasks")


@pytest.mark.parametrize("name", schedulers.NAMES)
def test_each_descriptor_is_complete(name):
    assert schedulers.problems(schedulers.get(name)) == []


def test_a_broken_descriptor_is_named_with_what_is_wrong():
    broken = dict(schedulers.get("volcano"), runtimes=("binary", "moon"), features=("gang", "teleport"))
    del broken["queue"]
    broken["colour"] = "red"
    assert schedulers.problems(broken) == [
        "scheduler volcano: the descriptor has no queue",
        "scheduler volcano: the descriptor key colour is unknown",
        "scheduler volcano: runtime moon is unknown (use binary, kind, external)",
        "scheduler volcano: feature teleport is unknown (use gang, fair_share, priority)",
    ]
    assert schedulers.problems(dict(schedulers.get("kueue"), build=None)) == [
        "scheduler kueue: the binary runtime needs a build"]


def test_a_broken_local_is_named_with_what_is_wrong():
    """Its processes are those the hold, the internals and its metrics endpoints name."""
    local = dict(schedulers.get("volcano")["local"], processes=["vc-controller-manager"], colour="red")
    assert schedulers.problems(dict(schedulers.get("volcano"), local=local)) == [
        "scheduler volcano: the local key colour is unknown",
        "scheduler volcano: hold names the process vc-scheduler, which local does not start",
        "scheduler volcano: internals names the process vc-scheduler, which local does not start",
        "scheduler volcano: local metrics names the process vc-scheduler, which local does not start",
    ]
    assert schedulers.problems(dict(schedulers.get("default"), local={})) == [
        "scheduler default: local names no processes",
        "scheduler default: hold names the process kube-scheduler, which local does not start",
        "scheduler default: internals names the process kube-scheduler, which local does not start",
    ]


@pytest.mark.parametrize("name", schedulers.NAMES)
def test_the_shared_steps_find_the_files_a_descriptors_local_names(name):
    """roles/scheduler/tasks/binary.yml includes <name>/init.yml with local.init, <name>/knobs.yml with knobs."""
    local = schedulers.get(name)["local"] or {}
    assert os.path.exists(os.path.join(TASKS, name, "init.yml")) == bool(local.get("init")), name
    assert os.path.exists(os.path.join(TASKS, name, "knobs.yml")) == bool(schedulers.get(name).get("knobs")), name


@pytest.mark.parametrize("name", schedulers.NAMES)
def test_each_runtime_a_descriptor_names_has_its_task_file(name):
    for runtime in schedulers.get(name)["runtimes"]:
        assert os.path.exists(os.path.join(TASKS, name, "%s.yml" % runtime)), (runtime, name)


def test_no_task_file_deploys_a_scheduler_without_a_descriptor():
    """A scheduler's folder, roles/scheduler/tasks/<name>/, deploys it on a runtime with <runtime>.yml; its other
    files are its own steps (kueue/init.yml)."""
    deployed = set()
    for name in os.listdir(TASKS):
        if os.path.isdir(os.path.join(TASKS, name)):
            deployed |= {(os.path.splitext(entry)[0], name) for entry in os.listdir(os.path.join(TASKS, name))
                         if os.path.splitext(entry)[0] in sched_rules.RUNTIMES}
    declared = {(runtime, name) for name in schedulers.NAMES for runtime in schedulers.get(name)["runtimes"]}
    assert deployed == declared


def test_the_rules_and_the_capacity_model_read_the_descriptors():
    assert knob_checks.SCHEDULERS == ("default", "kueue", "volcano", "yunikorn", "coscheduling")
    assert knob_checks.RUNTIME_SCHEDULERS["external"] == ("default",)
    assert knob_checks.NO_DIRECT_PODS == {"kueue": schedulers.get("kueue")["direct_pods"]}
    assert sched_capacity.QUEUE_SCHEDULERS == ("kueue", "volcano", "yunikorn")
    assert sched_capacity.WHOLE_JOB_SCHEDULERS == ("kueue", "volcano", "coscheduling")
    assert sched_capacity.ADMITTING_SCHEDULERS == ("kueue", "volcano")
    assert sched_workloads.NATIVE_FEATURES["kueue"] == ("fair_share", "priority", "topology")


@pytest.mark.parametrize("name", [name for name in schedulers.NAMES if schedulers.get(name)["pod_scheduler_name"]])
def test_the_pods_name_the_descriptors_scheduler(name):
    target = sched_workloads.Target(name, "sched-bench", "run-1")
    work = {"pods_per_job": 2, "pod_cpu": "100m", "pod_memory": "64Mi", "pod_duration": 1,
            "pod_creation": "job-controller"}
    objects = sched_workloads.workload(0, target, work)
    names = set()
    for _, body in objects:
        spec = body.get("spec") or {}
        for template in [spec.get("template")] + [task["template"] for task in spec.get("tasks") or []]:
            if template:
                names.add(template["spec"].get("schedulerName"))
    assert names == {schedulers.get(name)["pod_scheduler_name"]}


def test_the_filters_give_the_roles_the_descriptors():
    assert plugin.scheduler_descriptor("volcano")["queue"] == "test-queue"
    with pytest.raises(AnsibleFilterError, match="scheduler 'slurm' has no descriptor; known: default, kueue"):
        plugin.scheduler_descriptor("slurm")
    assert list(plugin.scheduler_catalog("build")) == ["kueue", "volcano", "yunikorn", "coscheduling"]
    assert plugin.scheduler_catalog("release", "manifest_url") == {
        name: schedulers.get(name)["release"]["manifest_url"] for name in ("kueue", "volcano")}
    assert plugin.scheduler_catalog("release", "chart_repository") == {
        "yunikorn": "https://apache.github.io/yunikorn-release", "coscheduling": ""}
    with pytest.raises(AnsibleFilterError, match="'colour' is no descriptor key"):
        plugin.scheduler_catalog("colour")
    # bench_schedulers' default: what the runtime deploys; a runtime that is none is left to bench_runtime's rule.
    assert plugin.runtime_schedulers("binary") == plugin.runtime_schedulers("kind") == list(schedulers.NAMES)
    assert plugin.runtime_schedulers("external") == ["default"]
    assert plugin.runtime_schedulers("podman") == list(schedulers.NAMES)


def test_the_roles_take_their_scheduler_data_from_the_filters():
    def defaults(role):
        with open(os.path.join(ROOT, "roles", role, "defaults", "main.yml"), encoding="utf-8") as handle:
            return yaml.safe_load(handle)
    components = defaults("scheduler_components")
    assert components["scheduler_components_schedulers"] == "{{ ('build' | scheduler_catalog).keys() | list }}"
    assert defaults("scheduler")["scheduler_release_manifest_urls"] == (
        "{{ 'release' | scheduler_catalog('manifest_url') }}")


def test_the_guide_explains_every_key():
    with open(os.path.join(ROOT, "docs", "adding-a-scheduler.md"), encoding="utf-8") as handle:
        guide = handle.read()
    missing = [key for key in list(schedulers.KEYS) + list(schedulers.OPTIONAL_KEYS) + list(schedulers.LOCAL_KEYS)
               if "`%s`" % key not in guide]
    assert missing == []
