"""The history of a results directory (plugin_utils/history/load.py, plugin_utils/history/render.py, playbooks/history.yml):
which runs share a trend line, each point's median and interval, the chart's geometry, the page and the CSV."""
import csv
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from datetime import datetime, timedelta, timezone

import pytest
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history import load as history
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history import render
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.run import Stat
from report_fixtures import env, summary, write_failed, write_result

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKLOAD = {"nodes": 20, "jobs": 50, "pods_per_job": 3, "pod_creation": "job-controller", "timeout": 300}


def write_repeat(directory, started, throughput, p99=30.0, makespan=1.5, kubernetes="v1.32.2", timeout=300, nodes=20,
                 repeats=1, scheduler="default"):
    document = summary(scheduler, throughput=throughput, makespan_s=makespan,
                       latency={"p50": 10.0, "p90": 20.0, "p99": p99, "max": 40.0})
    document.update(started_at=started, scenario="burst", workload=dict(WORKLOAD, timeout=timeout, nodes=nodes))
    host_env = env("h", scheduler)
    host_env["versions"]["pins"] = {"kubernetes": kubernetes}
    host_env["versions"]["scheduler"] = {"version": kubernetes if scheduler == "default" else "v0.10.1"}
    host_env["workload"].update(repeats=repeats)
    write_result(directory, document, env_doc=host_env)


def write_run(results, run_id, started, throughputs, **options):
    """A run of host h and scheduler default, a repeat per throughput (repeat k in repeat-<k>/)."""
    base = os.path.join(str(results), run_id, "h", options.get("scheduler", "default"))
    for index, throughput in enumerate(throughputs):
        directory = base if index == 0 else os.path.join(base, "repeat-%d" % (index + 1))
        write_repeat(directory, started, throughput, repeats=len(throughputs), **options)


@pytest.fixture(name="results")
def fixture_results(tmp_path):
    """r1, r2 (three repeats), r5 (another timeout, one repeat): one line; r3 has 50 nodes, r4 Kubernetes v1.33.0:
    a line each; r6 failed before any load test; 'empty' holds nothing."""
    results = tmp_path / "results"
    write_run(results, "r1", "2026-11-01T00:00:00Z", [100.0])
    write_run(results, "r2", "2026-11-02T00:00:00.5Z", [100.0, 130.0, 110.0])
    write_run(results, "r3", "2026-11-03T00:00:00Z", [80.0], nodes=50)
    write_run(results, "r4", "2026-11-04T00:00:00Z", [90.0], kubernetes="v1.33.0")
    write_run(results, "r5", "2026-11-05T00:00:00Z", [120.0], timeout=900)
    write_failed(str(results / "r6" / "h"), "Prepare the Go toolchain", "module proxy: connection refused")
    (results / "empty").mkdir()
    return results


def test_runs_of_one_configuration_share_a_line_and_the_others_get_their_own(results):
    built = history.load_history(str(results))

    lines = [(line.host, line.scheduler, [point.run_id for point in line.points]) for line in built.series]
    assert lines == [("h", "default", ["r1", "r2", "r5"]), ("h", "default", ["r3"]), ("h", "default", ["r4"])]
    configs = {line.points[0].run_id: line.configuration for line in built.series}
    assert history.differences(configs) == {
        "r1": "versions.kubernetes v1.32.2, versions.scheduler v1.32.2, workload.nodes 20",
        "r3": "versions.kubernetes v1.32.2, versions.scheduler v1.32.2, workload.nodes 50",
        "r4": "versions.kubernetes v1.33.0, versions.scheduler v1.33.0, workload.nodes 20"}
    assert history.describe(built.series[0].configuration, "default") == (
        "burst, 20 nodes, 50 jobs × 3 pods; Kubernetes v1.32.2, binary runtime")


def test_runs_whose_figures_are_defined_differently_are_not_drawn_on_one_line(tmp_path):
    """summary.json's schema version 2 changed the percentiles and the peak (docs/metrics.md#versions): a run
    before it and one after are two lines, though all else is alike."""
    results = tmp_path / "results"
    write_run(results, "old", "2026-11-01T00:00:00Z", [100.0])
    write_run(results, "new", "2026-12-03T00:00:00Z", [100.0])
    for run_id, version in (("old", None), ("new", 2)):
        path = results / run_id / "h" / "default" / "summary.json"
        document = {key: value for key, value in json.loads(path.read_text()).items() if key != "schema_version"}
        path.write_text(json.dumps(dict(document, **({} if version is None else {"schema_version": version}))))
    built = history.load_history(str(results))
    assert [[point.run_id for point in line.points] for line in built.series] == [["old"], ["new"]]
    configs = {line.points[0].run_id: line.configuration for line in built.series}
    assert history.differences(configs) == {"old": "schema_version 1", "new": "schema_version 2"}


def test_a_point_is_the_median_of_the_runs_complete_repeats_with_its_interval(results):
    line = history.load_history(str(results)).series[0]

    r1, r2, r5 = line.points
    # Three repeats 100, 130, 110: median 110; the 95 % bootstrap interval of three is their range.
    throughput = r2.stats["throughput_pods_per_s"]
    assert (throughput.median, throughput.ci_low, throughput.ci_high, r2.repeats) == (110.0, 100.0, 130.0, 3)
    assert render.interval(throughput) == (100.0, 130.0)
    assert render.interval(r1.stats["throughput_pods_per_s"]) is None
    assert r2.started == datetime(2026, 11, 2, 0, 0, 0, 500000, tzinfo=timezone.utc)
    assert (r1.stats["latency_p99_ms"].median, r5.stats["makespan_s"].median) == (30.0, 1.5)


@pytest.mark.parametrize("stat, expected", [
    (Stat(110.0, 100.0, 130.0, 3, 100.0, 130.0), (100.0, 130.0)),
    (Stat(110.0, 100.0, 120.0, 2), (100.0, 120.0)),
    (Stat(110.0, 110.0, 110.0, 3, 110.0, 110.0), None),
    (Stat(110.0, 110.0, 110.0, 1), None),
    (Stat(None, None, None, 0), None),
])
def test_interval_is_the_reports(stat, expected):
    assert render.interval(stat) == expected


def test_the_runs_table_lists_every_run_newest_first_with_its_outcome(results):
    (results / "r2" / "report.html").write_text("<html></html>")
    (results / "r2" / "report.json").write_text(json.dumps({"gate": {"checks": 2, "passed": 1, "missed": [{}]}}))
    (results / "r1" / "report.md").write_text("# Scheduler benchmark\n\n## Gate: passed\n")
    built = history.load_history(str(results))

    entries = [(entry.run_id, entry.gate, entry.report, entry.complete, entry.results, entry.failed_hosts)
               for entry in built.runs]
    # r6 has no date (no load test ran): last.
    assert entries == [("r5", None, None, 1, 1, []), ("r4", None, None, 1, 1, []), ("r3", None, None, 1, 1, []),
                       ("r2", "missed", os.path.join("r2", "report.html"), 1, 1, []), ("r1", "passed", None, 1, 1, []),
                       ("r6", None, None, 0, 0, ["h"])]
    assert built.runs[3].max_repeats == 3
    assert built.runs[3].scenarios == ["burst, 20 nodes, 50 jobs × 3 pods"]
    assert [name for name, _ in built.skipped] == ["empty"]


@pytest.mark.parametrize("files, verdict", [
    ({}, None),
    ({"report.json": json.dumps({"gate": None})}, None),
    ({"report.json": json.dumps({"gate": {"checks": 1, "passed": 1, "missed": []}})}, "passed"),
    ({"report.json": json.dumps({"gate": {"checks": 1, "passed": 0, "missed": [{"line": "x"}]}})}, "missed"),
    ({"report.json": json.dumps({"gate": {"verdict": "refused", "missed": []}})}, "refused"),
    ({"report.md": "# r\n\n## Gate: missed\n\n2 checks"}, "missed"),
    ({"report.md": "# r\n\n## Fleet\n"}, None),
])
def test_gate_verdict_from_the_runs_report(tmp_path, files, verdict):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert history.gate_verdict(str(tmp_path)) == verdict


@pytest.mark.parametrize("text, expected", [
    ("2026-12-03T11:30:07.933460Z", datetime(2026, 12, 3, 11, 30, 7, 933460, tzinfo=timezone.utc)),
    ("2026-12-03T12:30:07+01:00", datetime(2026, 12, 3, 11, 30, 7, tzinfo=timezone.utc)),
    ("2026-12-03T11:30:07", datetime(2026, 12, 3, 11, 30, 7, tzinfo=timezone.utc)),
    ("", None), (None, None), ("yesterday", None),
])
def test_parse_time(text, expected):
    assert history.parse_time(text) == expected


@pytest.mark.parametrize("highest, ticks", [
    (87, [0, 25, 50, 75, 100]),
    (100, [0, 25, 50, 75, 100]),
    (101, [0, 50, 100, 150, 200]),
    (4, [0, 1, 2, 3, 4]),
    (0.105, [0, 0.05, 0.1, 0.15, 0.2]),
    (0, [0, 1, 2, 3, 4]),
    (None, [0, 1, 2, 3, 4]),
])
def test_nice_ticks(highest, ticks):
    assert render.nice_ticks(highest) == ticks


def test_chart_geometry():
    start = datetime(2026, 11, 1, tzinfo=timezone.utc)
    # The plot spans x 52 to 366 (380 - 14), y 186 (value 0) to 30 (the top tick).
    assert render.x_positions([start, start + timedelta(hours=1), start + timedelta(hours=4)]) == [52, 130.5, 366]
    assert render.x_positions([start]) == [209]
    assert (render.y_position(0, 100), render.y_position(50, 100), render.y_position(100, 100)) == (186, 108, 30)


def test_a_chart_draws_each_runs_median_and_interval_where_the_geometry_says(results):
    line = history.load_history(str(results)).series[0]
    svg = ElementTree.fromstring(render.trend_svg(line, "throughput", "Mean throughput (pods/s)",
                                                  ("throughput_pods_per_s",)))

    # Runs at day 0, 1 (and half a second) and 4 of the line: x = 52 + 314 * t / 4 days. Values 100, 110 [100–130] and
    # 120 reach 130: ticks of 50 up to 200, y = 186 - 156 * value / 200.
    circles = [(c.get("data-run"), float(c.get("cx")), float(c.get("cy"))) for c in svg.iter("circle")]
    assert circles == [("r1", 52.0, 108.0), ("r2", 130.5, 100.2), ("r5", 366.0, 92.4)]
    bars = [group for group in svg.iter("g") if "interval" in group.get("class")]
    assert [group.get("data-run") for group in bars] == ["r2"]
    whisker = next(iter(bars[0]))
    assert (float(whisker.get("y1")), float(whisker.get("y2"))) == (108.0, 84.6)
    polyline = next(svg.iter("polyline"))
    assert polyline.get("points") == "52,108 130.5,100.2 366,92.4"
    labels = [text.text for text in svg.iter("text")]
    assert labels[:2] == ["Mean throughput (pods/s)", "0"] and "200" in labels
    assert labels[-2:] == ["2026-11-01 00:00", "2026-11-05 00:00"]


def test_the_page_holds_the_runs_and_a_section_of_three_charts_per_line(results):
    (results / "r2" / "report.html").write_text("<html></html>")
    page = render.render_html(history.load_history(str(results)), "Benchmark history of results")

    assert re.findall(r'<tr data-run="([^"]+)">', page) == ["r5", "r4", "r3", "r2", "r1", "r6"]
    assert '<a href="r2/report.html">r2</a>' in page
    sections = re.findall(r'<section class="series" id="series-(\w+)" data-host="h" data-scheduler="default"', page)
    assert len(sections) == 3
    assert page.count('<svg class="trend"') == 9
    assert "Left out, no results in them: empty (" in page
    assert "Apart from the other lines of default on h by: " in page
    assert "<script" not in page and "http" not in page


def test_the_csv_has_a_row_per_run_host_and_scheduler(results):
    rows = list(csv.DictReader(io.StringIO(render.render_csv(history.load_history(str(results))))))

    assert [(row["run_id"], row["host"], row["scheduler"], row["status"]) for row in rows] == [
        ("r1", "h", "default", "complete"), ("r2", "h", "default", "complete"), ("r3", "h", "default", "complete"),
        ("r4", "h", "default", "complete"), ("r5", "h", "default", "complete"), ("r6", "h", "", "failed")]
    assert rows[5]["reason"] == "host failed at Prepare the Go toolchain: module proxy: connection refused"
    r2 = rows[1]
    assert (r2["started"], r2["repeats"], r2["throughput_pods_per_s"], r2["throughput_pods_per_s_ci_low"],
            r2["throughput_pods_per_s_ci_high"]) == ("2026-11-02T00:00:00Z", "3", "110", "100", "130")
    assert rows[0]["configuration"] == r2["configuration"] == rows[4]["configuration"] != rows[2]["configuration"]
    assert r2["workload"] == "burst, 20 nodes, 50 jobs × 3 pods; Kubernetes v1.32.2, binary runtime"


def run_history_playbook(results_dir):
    environment = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
                       ANSIBLE_FORCE_COLOR="0", PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run(["ansible-playbook", "playbooks/history.yml", "-e", "bench_results_dir=%s" % results_dir],
                          cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.slow  # runs ansible-playbook
def test_history_playbook_writes_the_index_once(results):
    first = run_history_playbook(results)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "6 runs, 3 trend lines" in first.stdout and "left out: empty: " in first.stdout
    assert (results / "index.html").read_text().count('<svg class="trend"') == 9
    assert len((results / "index.csv").read_text().splitlines()) == 1 + 6

    again = run_history_playbook(results)
    assert again.returncode == 0 and "changed=0" in again.stdout, again.stdout


@pytest.mark.parametrize("config, text", [
    ({"scenario": "burst", "scenario_scale": 1, "workload": {"nodes": 5, "jobs": 5, "pods_per_job": 1},
      "versions": {"kubernetes": "v1.32.2", "scheduler": "v0.10.1"}, "runtime": "binary"},
     "burst, 5 nodes, 5 jobs × 1 pod; Kubernetes v1.32.2, kueue v0.10.1, binary runtime"),
    ({"scenario": "gang", "scenario_scale": 0.125, "workload": {}, "versions": {}, "runtime": None}, "gang × 0.125"),
])
def test_describe(config, text):
    assert history.describe(config, "kueue") == text
