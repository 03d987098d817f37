"""Every figure as OpenMetrics (plugin_utils/report/metric_names.py, openmetrics.py, metrics.prom): each number of
every summary.json once, named and converted to base units by Prometheus' conventions, with the run's labels; the
text laid out as OpenMetrics asks (a family's TYPE, UNIT and HELP before its samples, families whole, # EOF last).
promtool and a real Prometheus read it in tests/e2e/test_prometheus.py."""
import json
import os
import re
import shutil

import pytest
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import run as run_data
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import task as report_task
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.metric_names import figure_of, figures
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.openmetrics import render_openmetrics
from report_fixtures import env, summary, write_result

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
NAME = re.compile(r"^kube_sched_bench_[a-z0-9_]+$")
SAMPLE = re.compile(r'^([a-z0-9_]+)\{((?:[a-z_]+="(?:[^"\\]|\\.)*",?)*)\} (\S+)$')


def parse(text):
    """{name: {"type", "unit", "help", "samples": [(labels, value)]}}; asserts the layout OpenMetrics asks for."""
    lines = text.splitlines()
    assert lines[-1] == "# EOF" and text.endswith("\n")
    found, current = {}, None
    for line in lines[:-1]:
        if line.startswith("# "):
            kind, name, rest = line[2:].split(" ", 2)
            if name != current:
                assert name not in found, "family %s is split" % name
                current = name
                found[name] = {"samples": []}
            assert not found[name]["samples"], "%s: metadata after samples" % name
            found[name][kind.lower()] = rest
            continue
        name, labels, value = SAMPLE.match(line).groups()
        assert name == current, line
        found[name]["samples"].append((dict(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', labels)), float(value)))
    return found


def numbers(document, path=()):
    """Every number (and boolean) of a summary.json, outside lists."""
    count = 0
    for key, value in document.items():
        if isinstance(value, dict):
            count += numbers(value, path + (key,))
        elif isinstance(value, (bool, int, float)) and (path + (key,)) != ("schema_version",):
            count += 1
    return count


@pytest.fixture(name="why_run")
def fixture_why_run(tmp_path):
    """Four schedulers' real summaries (the why fixtures and a contend run) on one host, and two repeats of another."""
    run_dir = tmp_path / "r1"
    for scheduler in ("default", "volcano", "kueue"):
        shutil.copytree(os.path.join(FIXTURES, "why", scheduler), str(run_dir / "lab-01" / scheduler))
    shutil.copytree(os.path.join(FIXTURES, "contend-default"), str(run_dir / "lab-01" / "coscheduling"))
    write_result(str(run_dir / "lab-02" / "default"), summary(), env_doc=env("lab-02"))
    write_result(str(run_dir / "lab-02" / "default" / "repeat-2"), summary(throughput=90.0), env_doc=env("lab-02"))
    return str(run_dir)


def test_every_number_of_every_summary_is_one_sample(why_run):
    parsed = parse(render_openmetrics(run_data.load_run(why_run)))
    samples = [labels for family in parsed.values() for labels, _ in family["samples"]]
    for scheduler in ("default", "volcano", "kueue", "coscheduling"):
        with open(os.path.join(why_run, "lab-01", scheduler, "summary.json"), encoding="utf-8") as handle:
            expected = numbers(json.load(handle))
        assert sum(1 for labels in samples if labels["host"] == "lab-01" and labels["scheduler"] == scheduler) == expected
    keys = [(name, tuple(sorted(labels.items()))) for name, family in parsed.items() for labels, _ in family["samples"]]
    assert len(keys) == len(set(keys))


def test_names_units_and_help_follow_prometheus_conventions(why_run):
    parsed = parse(render_openmetrics(run_data.load_run(why_run)))
    for name, family in parsed.items():
        assert NAME.match(name), name
        assert family["type"] == "gauge" and family["help"].startswith("summary.json's "), name
        if "unit" in family:
            assert family["unit"] in ("seconds", "bytes", "ratio") and name.endswith("_" + family["unit"]), name
        assert not name.endswith(("_total", "_created", "_count", "_sum", "_bucket", "_info", "_ms", "_s", "_mb")), name
    assert not [name for name in parsed if "percent" in name or "_ms_" in name]


def test_the_run_throughput_and_latency_with_their_labels(why_run):
    parsed = parse(render_openmetrics(run_data.load_run(why_run)))
    throughput = parsed["kube_sched_bench_throughput_pods_per_second"]
    assert "unit" not in throughput
    by_where = {(labels["host"], labels["scheduler"], labels["repeat"]): (labels, value)
                for labels, value in throughput["samples"]}
    labels, value = by_where[("lab-02", "default", "2")]
    assert value == 90.0
    assert labels == {"run": "r1", "host": "lab-02", "scheduler": "default", "repeat": "2", "scenario": "burst",
                      "runtime": "binary", "version_set": "modern", "kubernetes_version": "", "scheduler_version": ""}
    assert by_where[("lab-02", "default", "1")][1] == 100.0
    labels, _ = by_where[("lab-01", "volcano", "1")]
    assert (labels["runtime"], labels["version_set"], labels["kubernetes_version"], labels["scheduler_version"]) == (
        "binary", "modern", "v1.32.2", "v1.11.0")
    p99 = parsed["kube_sched_bench_latency_p99_seconds"]
    assert p99["unit"] == "seconds" and p99["help"] == "summary.json's latency_ms.p99, in seconds (docs/metrics.md)"
    assert dict(((labels["host"], labels["repeat"]), value) for labels, value in p99["samples"]
                if labels["scheduler"] == "default")[("lab-02", "1")] == pytest.approx(0.03)
    # A map of names (processes, tenants, verbs) gives a label, not a name.
    fsync = parsed["kube_sched_bench_internals_processes_wal_fsync_p99_seconds"]["samples"]
    assert {labels["process"] for labels, _ in fsync} == {"etcd"}
    verbs = parsed["kube_sched_bench_internals_processes_requests_by_verb"]["samples"]
    assert {"GET", "POST"} <= {labels["verb"] for labels, _ in verbs}
    tenants = parsed["kube_sched_bench_scenario_metrics_fair_share_tenants_share"]["samples"]
    assert {labels["tenant"] for labels, _ in tenants} == {"team-a", "team-b"}


@pytest.mark.parametrize("path, value, name, unit, converted", [
    (("throughput_pods_per_s",), 24.5, "kube_sched_bench_throughput_pods_per_second", None, 24.5),
    (("latency_ms", "p99"), 912.0, "kube_sched_bench_latency_p99_seconds", "seconds", 0.912),
    (("makespan_s",), 2.5, "kube_sched_bench_makespan_seconds", "seconds", 2.5),
    (("scheduler_cost", "peak_rss_mb"), 2.0, "kube_sched_bench_scheduler_cost_peak_rss_bytes", "bytes", 2097152.0),
    (("host_load", "other_cpu_percent"), 49.0, "kube_sched_bench_host_load_other_cpu_ratio", "ratio", 0.49),
    (("scenario_metrics", "window", "start_us"), 2e6, "kube_sched_bench_scenario_metrics_window_start_seconds",
     "seconds", 2.0),
    (("makespan_bound", "seconds"), 3.0, "kube_sched_bench_makespan_bound_seconds", "seconds", 3.0),
    (("pods_created",), 60, "kube_sched_bench_pods_created_value", None, 60.0),
    (("internals", "processes", "<process>", "wal_fsync", "count"), 4,
     "kube_sched_bench_internals_processes_wal_fsync_observations", None, 4.0),
    (("host_load", "busy"), True, "kube_sched_bench_host_load_busy", None, 1.0),
])
def test_a_numbers_name_unit_and_value(path, value, name, unit, converted):
    figure = figure_of(path, (), float(value))
    assert (figure.name, figure.unit) == (name, unit)
    assert figure.value == pytest.approx(converted)


def test_lists_strings_and_the_schema_version_are_left_out():
    found = figures({"schema_version": 2, "scheduler": "default", "findings": [1, 2], "latency_ms": {"p50": None},
                     "pods_bound": 5})
    assert [(figure.name, figure.source, figure.value) for figure in found] == [
        ("kube_sched_bench_pods_bound", "pods_bound", 5.0)]


def test_the_report_action_writes_metrics_prom_beside_the_report(why_run):
    result = report_task.write_report({"run_dir": why_run, "compare_to": None, "output_dir": None, "gate": None,
                                       "gate_busy": "judge"}, check_mode=False)
    assert result["metrics_prom"] == os.path.join(why_run, "metrics.prom")
    with open(result["metrics_prom"], encoding="utf-8") as handle:
        assert handle.read() == render_openmetrics(run_data.load_run(why_run))
