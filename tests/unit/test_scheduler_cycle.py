"""The schedulers' cycle settings (issue 52): the knobs that set them refused in one line when mistyped or
impossible, written where a process or a release takes them (plugin_utils/cluster/cycle.py), read back from what a
scheduler runs with, and shown per scheduler in the report's environment section."""
import bench_checks
import pytest
import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import rules
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import table as knobs
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster import cycle
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.releases import manifests
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import environment as report
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import run as run_data
from report_fixtures import env, summary, write_result
from test_bench_checks import GOOD

CYCLE_KNOBS = ("scheduler_cycle_period", "kube_scheduler_parallelism", "kube_scheduler_percentage_of_nodes_to_score")


def problems(**changes):
    return bench_checks.bench_problems(dict(GOOD, **changes))


def test_the_cycle_knobs_are_fairness_knobs_recorded_with_upstreams_defaults():
    assert [(knobs.BY_NAME[name].group, knobs.BY_NAME[name].default) for name in CYCLE_KNOBS] == [
        (knobs.FAIRNESS, 1), (knobs.FAIRNESS, 16), (knobs.FAIRNESS, 0)]
    assert set(CYCLE_KNOBS) <= set(knobs.names("recorded")) and set(CYCLE_KNOBS) <= set(rules.RULES)
    assert problems(**{"bench_" + name: knobs.BY_NAME[name].default for name in CYCLE_KNOBS}) == []


@pytest.mark.parametrize("name, value, allowed", [
    ("scheduler_cycle_period", -1, "use a number greater than 0"),
    ("scheduler_cycle_period", 0, "use a number greater than 0"),
    ("scheduler_cycle_period", "fast", "use a number greater than 0"),
    ("scheduler_cycle_period", True, "use a number greater than 0"),
    ("kube_scheduler_parallelism", 0, "use a whole number of at least 1"),
    ("kube_scheduler_parallelism", 2.5, "use a whole number of at least 1"),
    ("kube_scheduler_parallelism", "many", "use a whole number of at least 1"),
    ("kube_scheduler_percentage_of_nodes_to_score", 101, "use a whole percentage from 0 to 100"),
    ("kube_scheduler_percentage_of_nodes_to_score", -1, "use a whole percentage from 0 to 100"),
    ("kube_scheduler_percentage_of_nodes_to_score", 12.5, "use a whole percentage from 0 to 100"),
    ("kube_scheduler_percentage_of_nodes_to_score", "half", "use a whole percentage from 0 to 100"),
])
def test_a_mistyped_or_impossible_cycle_knob_is_one_line_naming_it(name, value, allowed):
    assert problems(**{"bench_" + name: value}) == ["bench_%s=%r is not allowed: %s" % (name, value, allowed)]


@pytest.mark.parametrize("name, value", [("scheduler_cycle_period", "0.5"), ("scheduler_cycle_period", 0.001),
                                         ("kube_scheduler_parallelism", "32"), ("kube_scheduler_parallelism", 1),
                                         ("kube_scheduler_percentage_of_nodes_to_score", "100"),
                                         ("kube_scheduler_percentage_of_nodes_to_score", 0)])
def test_good_cycle_knobs_pass_as_yaml_or_the_command_line_gives_them(name, value):
    assert problems(**{"bench_" + name: value}) == []


def test_the_kube_scheduler_knobs_stay_upstreams_where_the_clusters_own_kube_scheduler_binds():
    kind = dict(bench_runtime="kind", bench_schedulers=["default", "kueue", "volcano"])
    assert problems(bench_kube_scheduler_parallelism="32", **kind) == [
        "bench_kube_scheduler_parallelism=32 is not supported on the kind runtime with default, kueue: the cluster's "
        "own kube-scheduler binds their pods, with upstream's value; leave it at 16"]
    assert problems(bench_kube_scheduler_percentage_of_nodes_to_score=50, bench_runtime="external",
                    bench_schedulers=["default"]) == [
        "bench_kube_scheduler_percentage_of_nodes_to_score=50 is not supported on the external runtime with "
        "default: the cluster's own kube-scheduler binds their pods, with upstream's value; leave it at 0"]
    # Upstream's value, a build of kube-scheduler of its own, the binary runtime, and the period: all fine.
    assert problems(bench_kube_scheduler_parallelism=16, **kind) == []
    assert problems(bench_kube_scheduler_parallelism=32, bench_runtime="kind", bench_schedulers=["coscheduling"]) == []
    assert problems(bench_kube_scheduler_parallelism=32, bench_schedulers=["default", "kueue"]) == []
    assert problems(bench_scheduler_cycle_period=0.5, **kind) == []


@pytest.mark.parametrize("seconds, text", [(1, "1s"), (0.5, "500ms"), (1.5, "1500ms"), (2, "2s"), (0.0002, "200us"),
                                           (60, "60s"), (1e-10, "1ns")])
def test_seconds_become_a_go_duration_and_back(seconds, text):
    assert cycle.go_duration(seconds) == text
    assert cycle.duration_seconds(text) == pytest.approx(max(seconds, 1e-9))


def test_go_durations_are_read_as_go_writes_them_and_nothing_else():
    assert [cycle.duration_seconds(text) for text in ("1m30s", "0s", "0", "1.5s", "250ms", "100\u00b5s")] == [
        90.0, 0.0, 0.0, 1.5, 0.25, 0.0001]
    for bad in ("", "1", "fast", "1sec", "s"):
        with pytest.raises(ValueError):
            cycle.duration_seconds(bad)
    with pytest.raises(ValueError):
        cycle.go_duration(-1)


def test_a_flag_is_read_from_a_command_line_or_proc_cmdline_the_last_one_winning():
    argv = ["/bin/vc-scheduler", "--schedule-period=2s", "--leader-elect=false", "--schedule-period", "500ms"]
    assert cycle.flag_value(argv, "--schedule-period") == "500ms"
    assert cycle.flag_value("\0".join(argv[:3]) + "\0", "--schedule-period") == "2s"
    assert cycle.flag_value(["/bin/vc-scheduler"], "--schedule-period", "1s") == "1s"
    assert cycle.flag_value(["--schedule-periods=3s"], "--schedule-period") is None


def test_kube_schedulers_settings_come_from_its_configz_or_a_file_with_upstreams_for_the_unset():
    configz = {"componentconfig": {"apiVersion": "kubescheduler.config.k8s.io/v1", "Parallelism": 32,
                                   "PercentageOfNodesToScore": 0, "Profiles": [{"PercentageOfNodesToScore": None}]}}
    assert cycle.kube_scheduler_cycle(configz) == {"parallelism": 32, "percentage_of_nodes_to_score": 0}
    assert cycle.kube_scheduler_cycle({"kind": "KubeSchedulerConfiguration", "percentageOfNodesToScore": 40}) == {
        "parallelism": 16, "percentage_of_nodes_to_score": 40}
    assert cycle.kube_scheduler_cycle({}) == {"parallelism": 16, "percentage_of_nodes_to_score": 0}


RELEASE = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: volcano-scheduler, namespace: volcano-system}
spec:
  template:
    spec:
      containers:
        - name: volcano-scheduler
          args: [--logtostderr, --schedule-period=1s, -v=3]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: volcano-controllers, namespace: volcano-system}
spec:
  template:
    spec:
      containers:
        - name: volcano-controllers
          args: [--logtostderr]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: scheduler-config, namespace: scheduler-plugins}
data:
  scheduler-config.yaml: |
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
      - schedulerName: scheduler-plugins-scheduler
---
apiVersion: v1
kind: ConfigMap
metadata: {name: yunikorn-defaults, namespace: yunikorn}
data:
  service.schedulingInterval: 250ms
  kubernetes.qps: "1000"
"""


def test_a_release_takes_the_cycle_settings_where_it_has_a_place_and_gives_them_back():
    original = list(yaml.safe_load_all(RELEASE))
    assert cycle.release_cycle(RELEASE) == {"schedule_period_s": 1.0, "parallelism": 16,
                                            "percentage_of_nodes_to_score": 0, "scheduling_interval_s": 0.25}
    docs, applied = cycle.release_cycle_knobs(original, period=0.5, parallelism=8, percentage=30)
    assert applied == [
        "Deployment volcano-system/volcano-scheduler: volcano-scheduler --schedule-period=500ms",
        "ConfigMap scheduler-plugins/scheduler-config: scheduler-config.yaml parallelism=8, percentageOfNodesToScore=30"]
    # No flag is added to a container that passes none; the input is left alone.
    assert docs[1]["spec"]["template"]["spec"]["containers"][0]["args"] == ["--logtostderr"]
    assert original == list(yaml.safe_load_all(RELEASE))
    assert cycle.release_cycle(docs) == {"schedule_period_s": 0.5, "parallelism": 8,
                                         "percentage_of_nodes_to_score": 30, "scheduling_interval_s": 0.25}
    assert cycle.release_cycle_knobs(original) == (original, [])


def test_kind_release_applies_the_cycle_settings_with_the_other_knobs():
    knobs_ = {"env": {}, "qps": 1000, "burst": 1000, "cycle": {"period": 2, "parallelism": 4, "percentage": 0}}
    release = manifests.kind_release(RELEASE, "localhost:5001", "500m", "2", knobs=knobs_)
    assert "Deployment volcano-system/volcano-scheduler: volcano-scheduler --schedule-period=2s" in release[
        "knobs_applied"]
    assert cycle.release_cycle(release["text"])["schedule_period_s"] == 2.0
    assert cycle.release_cycle(release["text"])["parallelism"] == 4


def test_the_report_shows_each_schedulers_cycle_settings_and_where_they_were_read(tmp_path):
    for scheduler, settings, source in (
            ("default", {"parallelism": 16, "percentage_of_nodes_to_score": 0}, "kube-scheduler's /configz"),
            ("volcano", {"schedule_period_s": 0.5}, "vc-scheduler's command line")):
        recorded = env("h", scheduler)
        recorded["cycle"] = settings
        recorded["versions"]["scheduler"] = {"name": scheduler, "cycle": settings, "cycle_source": source}
        recorded["profile"] = {"name": "batch", "settings": [{"setting": "actions", "value": "enqueue", "source": "https://x",
                                                              "what": "w"}] if scheduler == "volcano" else []}
        write_result(str(tmp_path / "r" / "h" / scheduler), summary(scheduler), env_doc=recorded)
    older = env("h", "kueue")
    write_result(str(tmp_path / "r" / "h" / "kueue"), summary("kueue"), env_doc=older)
    run = run_data.load_run(str(tmp_path / "r"))

    table = report.cycle_table(run)
    assert table.headers == ["Host", "Scheduler", "Profile", "Cycle settings", "Read from"]
    assert [[cell.text for cell in row] for row in table.rows] == [
        ["h", "default", "batch", "parallelism=16, percentage_of_nodes_to_score=0", "kube-scheduler's /configz"],
        ["h", "kueue", "n/a", "n/a", "n/a"],
        ["h", "volcano", "batch: actions", "schedule_period_s=0.5", "vc-scheduler's command line"]]
    blocks = report.environment_blocks(run)
    assert "Scheduler cycle settings" in [getattr(block, "text", "") for block in blocks]
    # The cycle settings belong to a scheduler, not the host: not in the host's environment.
    _, same, _ = report.environment_tables(run)
    assert not [row for row in same.rows if "cycle" in row[0].text]


def test_a_run_from_before_the_cycle_settings_has_no_such_table(tmp_path):
    write_result(str(tmp_path / "r" / "h" / "default"), summary(), env_doc=env("h"))
    assert report.cycle_table(run_data.load_run(str(tmp_path / "r"))) is None
