"""bench_scheduler_profile (issue 65 item 3): seed, each release's configuration as it ships, or batch, each scheduler's
recommended batch settings (its descriptor's profiles). The knob's checks, the descriptors' profiles against the
docs' table, and each scheduler's configuration as the role renders it under each profile: the role's own templates,
variables and task expressions, rendered by ansible-playbook with the project's filters."""
import json
import os
import re
import subprocess
import sys

import bench_checks
import pytest
import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers
from test_bench_checks import GOOD

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROLE = os.path.join(ROOT, "roles", "scheduler")
DOC = os.path.join(ROOT, "docs", "runtimes-and-schedulers.md")
# The release's vc-scheduler configuration as v1.11/v1.12 ship it (enqueue, allocate, backfill), in short.
VOLCANO_CONF = {"actions": "enqueue, allocate, backfill",
                "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]}, {"plugins": [{"name": "proportion"}]}]}


# What the role's templates read of the deployment (task variables: above the role's files in precedence).
FIXED = {"scheduler_cluster": {"dir": "/c", "kubeconfig": "/c/k"}, "ansible_managed": "managed",
         "scheduler_ports": {"kueue_health": 1, "kueue_metrics": 2, "kueue_pprof": 3, "kueue_webhook": 4},
         "scheduler_queue_cpu": "100", "scheduler_queue_memory": "100Gi"}


def problems(**changes):
    return bench_checks.bench_problems(dict(GOOD, **changes))


def test_seed_and_batch_pass_on_the_binary_runtime():
    assert problems(bench_scheduler_profile="seed") == []
    assert problems(bench_scheduler_profile="batch", bench_schedulers=["volcano", "kueue"]) == []


@pytest.mark.parametrize("value", ["fast", "Batch", "", 1])
def test_a_profile_that_is_not_one_is_refused_in_one_line_naming_the_choices(value):
    assert problems(bench_scheduler_profile=value) == [
        "bench_scheduler_profile=%r is not allowed: use one of seed, batch" % (value,)]


@pytest.mark.parametrize("runtime", ["kind", "external"])
def test_batch_elsewhere_than_the_binary_runtime_is_refused_in_one_line(runtime):
    assert problems(bench_runtime=runtime, bench_scheduler_profile="batch") == [
        "bench_scheduler_profile=batch is not supported on the %s runtime: only binary renders each scheduler's "
        "configuration from a profile (the others apply each release's as it ships); use seed" % runtime]
    assert problems(bench_runtime=runtime, bench_scheduler_profile="seed") == []


def test_seed_sets_nothing_and_batch_something_for_each_batch_scheduler():
    for name in schedulers.NAMES:
        assert schedulers.profile(name, "seed") == {}
        assert schedulers.profile_record(name, "seed") == {"name": "seed", "settings": []}
    # The default scheduler has no profile: batch is seed there.
    assert schedulers.profile("default", "batch") == {}
    for name in ("kueue", "volcano", "yunikorn", "coscheduling"):
        record = schedulers.profile_record(name, "batch")
        assert record["name"] == "batch" and record["settings"], name
        assert {entry["setting"]: entry["value"] for entry in record["settings"]} == schedulers.profile(name, "batch")


def test_a_broken_profile_is_named():
    broken = dict(schedulers.get("volcano"), profiles={
        "seed": {}, "batch": {"actions": {"value": "x", "source": "http://example.org", "what": "w"},
                              "tiers": {"value": []}}})
    assert schedulers.problems(broken) == [
        "scheduler volcano: profile seed is unknown (use batch)",
        "scheduler volcano: profile batch setting tiers lacks source",
        "scheduler volcano: profile batch setting tiers lacks what",
        "scheduler volcano: profile batch setting actions names no https page as its source",
        "scheduler volcano: profile batch setting tiers names no https page as its source"]


def doc_rows():
    """(scheduler, setting, source) of each row of the docs' table of scheduler profiles."""
    text = open(DOC, encoding="utf-8").read()
    section = text.split("### Scheduler profiles", 1)[1].split("\n### ", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| ")]
    return {(cells[0].strip(), cells[1].strip().strip("`"), cells[-1].strip()) for cells in rows[1:]}


def test_the_docs_table_lists_every_setting_with_its_page():
    expected = {(name, entry["setting"], entry["source"]) for name in schedulers.NAMES
                for entry in schedulers.profile_record(name, "batch")["settings"]}
    assert doc_rows() == expected


def task_expression(path, task_name, variable):
    """The expression a task of the role's file sets ``variable`` to (what the test renders as the role would)."""
    tasks = yaml.safe_load(open(os.path.join(ROLE, "tasks", path), encoding="utf-8"))
    return next(task["ansible.builtin.set_fact"][variable] for task in tasks if task["name"] == task_name)


def pieces():
    """{scheduler: [expression, ...]}: what the role renders of each scheduler's configuration, as this play's keys."""
    volcano = task_expression("volcano/binary.yml", "Put the settings of the scheduler profile over vc-scheduler's "
                              "configuration", "scheduler_volcano_conf").strip()[len("{{"):-len("}}")]
    template = "lookup('ansible.builtin.template', '%s/templates/%%s')" % ROLE
    return {
        "volcano": ["'volcano_conf': (%s) if scheduler_profile_values | length > 0 else scheduler_volcano_conf" % volcano],
        "kueue": ["'kueue_config': %s | from_yaml" % (template % "kueue-config.yaml.j2"),
                  "'kueue_objects': %s | from_yaml_all | list" % (template % "kueue-objects.yaml.j2")],
        "yunikorn": ["'yunikorn': %s | from_yaml" % (template % "yunikorn-configs.yaml.j2")],
        "coscheduling": ["'coscheduling': %s | from_yaml" % (template % "coscheduling-values.yaml.j2"),
                         "'plugin_config': scheduler_plugin_config"],
    }


def playbook(cases, out):
    """A play that renders, for each (scheduler, profile, scenario name or None), the role's configuration pieces
    into ``out``, under "<scheduler>/<profile>" (and "/<scenario>" with one)."""
    tasks, own = [], pieces()
    for name, profile, scenario in cases:
        key = "/".join([name, profile] + ([scenario] if scenario else []))
        keys = ["'values': scheduler_profile_values",
                "'record': scheduler_name | scheduler_profile(scheduler_profile, record=true)"] + own.get(name, [])
        tasks.append({"name": "Render " + key, "vars": dict(
            FIXED, scheduler_name=name, scheduler_profile=profile, scheduler_volcano_conf=VOLCANO_CONF,
            scheduler_scenario=bench_checks.scenario_of(scenario) if scenario else None),
            "ansible.builtin.set_fact": {"rendered": "{{ rendered | combine({'%s': {%s}}) }}" % (key, ", ".join(keys))}})
    tasks.append({"name": "Write what was rendered", "ansible.builtin.copy": {
        "dest": out, "content": "{{ rendered | to_json }}", "mode": "0600"}})
    return [{"hosts": "localhost", "gather_facts": False, "connection": "local",
             "vars_files": [os.path.join(ROLE, "defaults", "main.yml"), os.path.join(ROLE, "vars", "main.yml")],
             "vars": {"rendered": {}}, "tasks": tasks}]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    where = tmp_path_factory.mktemp("profiles")
    out, play = where / "out.json", where / "play.yml"
    cases = [(name, profile, None) for name in schedulers.NAMES for profile in schedulers.PROFILES]
    cases += [("yunikorn", profile, "fair-share") for profile in schedulers.PROFILES]
    play.write_text(yaml.safe_dump(playbook(cases, str(out)), sort_keys=False), encoding="utf-8")
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), str(play)], cwd=ROOT,
                         capture_output=True, text=True, check=False, timeout=300,
                         env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
                                  ANSIBLE_CALLBACKS_ENABLED="ansible.posix.profile_tasks"))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))


def cluster_queue(objects):
    return next(doc for doc in objects if doc["kind"] == "ClusterQueue")


def test_seed_renders_every_configuration_as_it_ships(rendered):
    for name in schedulers.NAMES:
        seed = rendered["%s/seed" % name]
        assert seed["values"] == {} and seed["record"] == {"name": "seed", "settings": []}
    assert rendered["volcano/seed"]["volcano_conf"] == VOLCANO_CONF
    assert "waitForPodsReady" not in rendered["kueue/seed"]["kueue_config"]
    assert "preemption" not in cluster_queue(rendered["kueue/seed"]["kueue_objects"])["spec"]
    root = yaml.safe_load(rendered["yunikorn/seed"]["yunikorn"]["queues.yaml"])["partitions"][0]["queues"][0]
    assert [queue.get("properties") for queue in root["queues"]] == [None]
    assert rendered["coscheduling/seed"]["plugin_config"] == schedulers.get("coscheduling")["plugin_config"]


def test_batch_turns_on_volcanos_preempt_and_reclaim_and_keeps_its_plugins(rendered):
    conf = rendered["volcano/batch"]["volcano_conf"]
    assert [action.strip() for action in conf["actions"].split(",")] == [
        "enqueue", "allocate", "backfill", "reclaim", "preempt"]
    assert conf["tiers"] == VOLCANO_CONF["tiers"]


def test_batch_gives_kueue_all_or_nothing_admission_and_preemption_in_the_bursts_queue(rendered):
    batch = rendered["kueue/batch"]
    assert batch["kueue_config"]["waitForPodsReady"] == {
        "enable": True, "blockAdmission": True, "timeout": "10m", "requeuingStrategy": {"timestamp": "Eviction"}}
    assert cluster_queue(batch["kueue_objects"])["spec"]["preemption"] == {
        "withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}
    # The rest of the configuration is seed's.
    seed = rendered["kueue/seed"]
    assert {key: value for key, value in batch["kueue_config"].items() if key != "waitForPodsReady"} == seed["kueue_config"]


def yunikorn_queues(rendered, key):
    """The queues under root of a rendered yunikorn-configs, and root itself."""
    root = yaml.safe_load(rendered[key]["yunikorn"]["queues.yaml"])["partitions"][0]["queues"][0]
    return root["queues"], root


def test_batch_gives_yunikorns_queues_fifo_sorting(rendered):
    queues, root = yunikorn_queues(rendered, "yunikorn/batch")
    assert [(queue["name"], queue.get("properties")) for queue in queues] == [
        ("sandbox", {"application.sort.policy": "fifo"})]
    assert "properties" not in root
    # A scenario's tenant queues get them too, and keep their guarantees.
    seed, _ = yunikorn_queues(rendered, "yunikorn/seed/fair-share")
    batch, _ = yunikorn_queues(rendered, "yunikorn/batch/fair-share")
    assert len(batch) == len(seed) > 2
    assert batch == [dict(queue, properties={"application.sort.policy": "fifo"}) for queue in seed]


def test_batch_gives_coschedulings_plugin_its_own_permit_wait_on_both_runtimes(rendered):
    batch = rendered["coscheduling/batch"]
    assert batch["plugin_config"] == [{"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 60}}]
    assert batch["coscheduling"]["pluginConfig"] == batch["plugin_config"]
    assert rendered["coscheduling/seed"]["coscheduling"]["pluginConfig"] == [
        {"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 10}}]


def test_the_default_scheduler_renders_batch_as_seed(rendered):
    assert rendered["default/batch"] == dict(rendered["default/seed"], record={"name": "batch", "settings": []})


def test_the_record_names_each_setting_applied_with_its_page(rendered):
    for name in ("kueue", "volcano", "yunikorn", "coscheduling"):
        record = rendered["%s/batch" % name]["record"]
        assert record["name"] == "batch"
        assert all(re.match(r"^https://", entry["source"]) for entry in record["settings"])
        assert {entry["setting"] for entry in record["settings"]} == set(rendered["%s/batch" % name]["values"])
