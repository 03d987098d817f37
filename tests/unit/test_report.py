"""The report: loading run directories, aggregation, tables, CSV, charts and the playbook."""
import csv
import io
import json
import os
import subprocess
import sys

import matplotlib.image
import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import stats as sched_stats
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import build as report
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import gate as sched_gate
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import render
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import run as run_data
from report_fixtures import env, summary, write_failed, write_result

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def column(table, header):
    return table.headers.index(header)


def row_of(table, first_cell):
    return next(row for row in table.rows if row[0].text == first_cell)


def cell(table, first_cell, header):
    return row_of(table, first_cell)[column(table, header)].text


def csv_row(built, host, scheduler):
    return next(row for row in built.csv_rows if row["host"] == host and row["scheduler"] == scheduler)


def host_table(run, host, previous=None):
    return report.host_table(run, host, previous)


@pytest.fixture(name="two_hosts")
def fixture_two_hosts(tmp_path):
    """Run 'r2': host a ran default and kueue; host b ran default only, on an older kernel."""
    run_dir = tmp_path / "r2"
    write_result(str(run_dir / "a" / "default"),
                 summary(throughput=120.0, makespan_s=1.25, peak=112,
                         latency={"p50": 47.3, "p90": 89.8, "p99": 111.0, "max": 132.8, "mean": 53.4},
                         cost={"cpu_seconds": 3.5, "peak_rss_mb": 80.25}),
                 (112, 150), env("a"))
    write_result(str(run_dir / "a" / "kueue"),
                 summary("kueue", throughput=60.0, makespan_s=2.5, timing_source="watch"), (40, 100, 150),
                 env("a", "kueue"))
    write_result(str(run_dir / "b" / "default"), summary(throughput=80.0, makespan_s=1.875), (90, 150),
                 env("b", kernel="3.10.0", distribution="CentOS"))
    return run_dir


def test_host_table_shows_each_schedulers_numbers(two_hosts):
    run = run_data.load_run(str(two_hosts))
    table = host_table(run, "a")

    assert [row[0].text for row in table.rows] == ["default", "kueue"]
    assert cell(table, "default", "Pods bound / expected") == "150 / 150"
    assert cell(table, "default", "Makespan (s)") == "1.25"
    assert cell(table, "default", "Mean throughput (pods/s)") == "120"
    assert cell(table, "default", "Peak throughput (pods/s)") == "112"
    assert [cell(table, "default", label) for label in ("p50 (ms)", "p90 (ms)", "p99 (ms)", "max (ms)")] == [
        "47.3", "89.8", "111", "132.8"]
    assert cell(table, "default", "Scheduler CPU (s)") == "3.5"
    assert cell(table, "default", "Scheduler peak RSS (MB)") == "80.25"
    assert cell(table, "default", "Timing source") == "audit"
    assert cell(table, "kueue", "Timing source") == "watch"
    assert cell(table, "default", "Status") == "complete"


def test_host_without_a_scheduler_the_others_ran_shows_it_as_not_run(two_hosts):
    run = run_data.load_run(str(two_hosts))
    table = host_table(run, "b")

    assert cell(table, "kueue", "Status") == "not run: no results"
    assert cell(table, "kueue", "Mean throughput (pods/s)") == "n/a"


def test_fleet_table_gives_median_and_range_across_hosts(two_hosts):
    run = run_data.load_run(str(two_hosts))
    table = report.fleet_table(run)

    assert cell(table, "default", "Hosts with results") == "2 of 2"
    assert cell(table, "default", "Mean throughput (pods/s)") == "100 (80–120)"
    assert cell(table, "default", "Makespan (s)") == "1.562 (1.25–1.875)"
    assert cell(table, "kueue", "Hosts with results") == "1 of 2"
    assert cell(table, "kueue", "Mean throughput (pods/s)") == "60"


def test_csv_has_one_row_per_host_and_scheduler_with_raw_numbers(two_hosts):
    built = report.build_report(run_data.load_run(str(two_hosts)))
    rows = list(csv.DictReader(io.StringIO(render.render_csv(built))))

    assert [(row["host"], row["scheduler"]) for row in rows] == [
        ("a", "default"), ("a", "kueue"), ("b", "default"), ("b", "kueue")]
    first = rows[0]
    assert first["run_id"] == "r2"
    assert float(first["throughput_pods_per_s"]) == 120.0
    assert float(first["latency_p90_ms"]) == 89.8
    assert float(first["scheduler_peak_rss_mb"]) == 80.25
    assert first["kernel"] == "6.1.0"
    assert rows[2]["distribution"] == "CentOS 12"
    assert rows[3]["status"] == "not run"
    assert rows[3]["throughput_pods_per_s"] == ""


def test_scheduler_version_shows_in_the_host_table_not_the_host_environment(tmp_path):
    recorded = env("h", "kueue")
    recorded["versions"]["scheduler"] = {"name": "kueue", "version": "v0.10.1", "knobs": {"api_qps": 1000}}
    write_result(str(tmp_path / "r" / "h" / "kueue"), summary("kueue"), env_doc=recorded)
    run = run_data.load_run(str(tmp_path / "r"))

    assert [row[0].text for row in host_table(run, "h").rows] == ["kueue (v0.10.1)"]
    _, same, _ = report.environment_tables(run)
    assert not [row for row in same.rows if row[0].text.startswith("versions.scheduler")]
    assert cell(same, "versions.components.kube-scheduler", "Value on every host") == "Kubernetes v1.32.2"


def test_environment_puts_what_differs_between_hosts_first(two_hosts):
    differing, same, without = report.environment_tables(run_data.load_run(str(two_hosts)))

    assert differing.headers == ["Field", "a", "b"]
    assert [cell.text for cell in row_of(differing, "system.kernel")] == ["system.kernel", "6.1.0", "3.10.0"]
    assert "system.distribution" in [row[0].text for row in differing.rows]
    assert cell(same, "knobs.scheduler_api_qps", "Value on every host") == "1000"
    assert cell(same, "knobs.scheduler_gogc", "Value on every host") == "(empty)"
    assert cell(same, "system.cgroupns", "Value on every host") == "true"
    assert without == []


def test_missing_metrics_read_n_a_everywhere(tmp_path):
    partial_summary = summary(makespan_s=None, latency={"p50": 12.0, "p90": None, "max": "broken"})
    del partial_summary["peak_throughput_pods_per_s"]
    del partial_summary["timing_source"]
    write_result(str(tmp_path / "r" / "h" / "default"), partial_summary, None, None)

    run = run_data.load_run(str(tmp_path / "r"))
    built = report.build_report(run)
    table = host_table(run, "h")

    for label in ("Makespan (s)", "Peak throughput (pods/s)", "p90 (ms)", "p99 (ms)", "max (ms)",
                  "Scheduler CPU (s)", "Scheduler peak RSS (MB)", "Timing source"):
        assert cell(table, "default", label) == "n/a", label
    assert cell(table, "default", "p50 (ms)") == "12"
    row = csv_row(built, "h", "default")
    assert row["makespan_s"] == "" and row["scheduler_cpu_s"] == "" and row["latency_p50_ms"] == 12
    assert "No pods-bound timeline was recorded on this host." in render.render_markdown(built)
    latency = next(chart for chart in built.charts if chart.file_name == "latency.png")
    assert latency.series == {"p50": [12.0], "p90": [None], "p99": [None], "max": [None]}
    assert render_valid_png(latency)


def test_failed_host_and_failed_scheduler_are_marked_with_their_reason(tmp_path):
    run_dir = tmp_path / "r"
    write_result(str(run_dir / "good" / "default"), summary(), env_doc=env("good"))
    write_result(str(run_dir / "good" / "kueue"), summary("kueue"), env_doc=env("good", "kueue"))
    write_result(str(run_dir / "bad" / "default"),
                 summary(pods_bound=90, complete=False, reason="timed out after 300s waiting for pods"),
                 (30, 90), env("bad"))
    write_failed(str(run_dir / "bad"), "Fail the host when a scheduler failed", "1 of 2 schedulers failed on bad",
                 {"default": {"task": "Run the load test", "msg": "timed out after 300s\nwaiting for pods"}})

    run = run_data.load_run(str(run_dir))
    built = report.build_report(run)
    table = host_table(run, "bad")
    markdown = render.render_markdown(built)

    assert cell(table, "default", "Status") == "failed: Run the load test: timed out after 300s waiting for pods"
    assert cell(table, "default", "Pods bound / expected") == "90 / 150"
    assert cell(table, "kueue", "Status") == (
        "not run: host failed at Fail the host when a scheduler failed: 1 of 2 schedulers failed on bad")
    assert row_of(table, "default")[column(table, "Status")].tone == "bad"
    assert "## Host bad (failed at Fail the host when a scheduler failed)" in markdown
    assert "- host bad failed at Fail the host when a scheduler failed: 1 of 2 schedulers failed on bad" in markdown
    assert "- bad / default: failed: Run the load test: timed out after 300s waiting for pods" in markdown
    assert "- bad / kueue" not in markdown
    # A failed measurement does not count in the fleet numbers.
    assert cell(report.fleet_table(run), "default", "Hosts with results") == "1 of 2"
    assert cell(report.fleet_table(run), "default", "Pods bound") == "150"
    assert built.summary["failed_hosts"] == ["bad"]
    assert built.summary["not_complete"] == ["bad/default", "bad/kueue"]
    assert '<td class="bad">failed: Run the load test' in render.render_html(built)


def test_scheduler_failure_recorded_only_in_env_json_is_shown(tmp_path):
    write_result(str(tmp_path / "r" / "h" / "volcano"), None, None,
                 env("h", "volcano", outcome={"task": "Deploy volcano", "msg": "image pull failed"}))

    table = host_table(run_data.load_run(str(tmp_path / "r")), "h")

    assert cell(table, "volcano", "Status") == "failed: Deploy volcano: image pull failed"


def test_scheduler_without_a_summary_or_with_an_incomplete_one(tmp_path):
    write_result(str(tmp_path / "r" / "h" / "default"), None, None, env("h"))
    write_result(str(tmp_path / "r" / "h" / "kueue"),
                 summary("kueue", pods_bound=60, complete=False, reason="timed out after 300s"), (20, 60))
    run = run_data.load_run(str(tmp_path / "r"))
    table = host_table(run, "h")

    assert cell(table, "default", "Status") == "not run: no summary.json"
    assert cell(table, "kueue", "Status") == "incomplete: timed out after 300s"
    assert cell(table, "kueue", "Pods bound / expected") == "60 / 150"
    assert report.bound_chart(run, "h", "bound-h.png").series == {"kueue (incomplete)": ([0, 1, 2], [0, 20, 60])}
    assert cell(report.fleet_table(run), "kueue", "Hosts with results") == "0 of 1"


def write_three_repeats(scheduler_dir, throughputs=(100.0, 130.0, 110.0), makespans=(1.5, 1.2, 1.4),
                        p99s=(30.0, 45.0, 20.0), completes=(True, True, True)):
    curves = [(40, 100, 150), (60, 150), (50, 110, 150)]
    for index in range(3):
        directory = scheduler_dir if index == 0 else os.path.join(scheduler_dir, "repeat-%d" % (index + 1))
        write_result(directory,
                     summary(throughput=throughputs[index], makespan_s=makespans[index],
                             latency={"p50": 10.0, "p90": 20.0, "p99": p99s[index], "max": 50.0, "mean": 12.0},
                             complete=completes[index], reason=None if completes[index] else "timed out"),
                     curves[index], env("h"))


def test_three_repeats_give_median_and_its_interval(tmp_path):
    write_three_repeats(str(tmp_path / "r" / "h" / "default"))
    run = run_data.load_run(str(tmp_path / "r"))
    built = report.build_report(run)
    table = host_table(run, "h")

    # The 95 % bootstrap interval of the median of three repeats is their range (sched_stats).
    assert cell(table, "default", "Mean throughput (pods/s)") == "110 [100–130]"
    assert cell(table, "default", "Makespan (s)") == "1.4 [1.2–1.5]"
    assert cell(table, "default", "p99 (ms)") == "30 [20–45]"
    assert cell(table, "default", "max (ms)") == "50"
    assert cell(table, "default", "Status") == "complete (3/3 repeats)"
    row = csv_row(built, "h", "default")
    assert (row["throughput_pods_per_s"], row["throughput_pods_per_s_min"], row["throughput_pods_per_s_max"]) == (
        110, 100, 130)
    assert (row["throughput_pods_per_s_ci_low"], row["throughput_pods_per_s_ci_high"]) == (100, 130)
    assert (row["repeats"], row["repeats_complete"]) == (3, 3)
    assert built.summary["statistics"]["seed"] == 14
    assert "95 % confidence interval with 3 or more repeats (percentile bootstrap over the repeats, 2000 " \
           "resamples, seed 14)" in render.render_markdown(built)


def test_repeats_chart_draws_the_repeat_with_the_median_makespan(tmp_path):
    write_three_repeats(str(tmp_path / "r" / "h" / "default"))
    built = report.build_report(run_data.load_run(str(tmp_path / "r")))

    bound = next(chart for chart in built.charts if chart.file_name == "bound-h.png")
    # Makespans 1.5, 1.2, 1.4: the median is repeat 3's.
    assert bound.series == {"default (repeat 3, median makespan)": ([0, 1, 2, 3], [0, 50, 110, 150])}
    throughput = next(chart for chart in built.charts if chart.file_name == "throughput.png")
    assert throughput.series == {"default": [110.0]}
    assert throughput.ranges == {"default": [(100.0, 130.0)]}


def test_incomplete_repeat_is_left_out_of_the_median(tmp_path):
    write_three_repeats(str(tmp_path / "r" / "h" / "default"), completes=(True, False, True))
    table = host_table(run_data.load_run(str(tmp_path / "r")), "h")

    assert cell(table, "default", "Mean throughput (pods/s)") == "105 (100–110)"
    assert cell(table, "default", "Status") == "partial (2/3 repeats complete): repeat 2: timed out"


def test_compare_to_adds_the_change_to_every_number(tmp_path, two_hosts):
    earlier = tmp_path / "r1"
    write_result(str(earlier / "a" / "default"),
                 summary(throughput=100.0, makespan_s=1.0, peak=112,
                         latency={"p50": 50.0, "p90": 89.8, "p99": 100.0, "max": 132.8, "mean": 53.4}),
                 (150,), env("a"))
    write_result(str(earlier / "b" / "default"), summary(throughput=100.0), (150,), env("b"))
    run = run_data.load_run(str(two_hosts))
    previous = run_data.load_run(str(earlier))
    table = host_table(run, "a", previous)

    assert cell(table, "default", "Mean throughput (pods/s)") == "120 Δ +20.0%"
    assert cell(table, "default", "Makespan (s)") == "1.25 Δ +25.0%"
    # One repeat against one: no verdict is possible, so nothing is coloured.
    assert row_of(table, "default")[column(table, "Mean throughput (pods/s)")].tone is None
    assert row_of(table, "default")[column(table, "Makespan (s)")].tone is None
    assert cell(table, "default", "p50 (ms)") == "47.3 Δ -5.4%"
    assert cell(table, "default", "Peak throughput (pods/s)") == "112 Δ +0.0%"
    assert cell(table, "default", "Scheduler CPU (s)") == "3.5"
    assert cell(table, "kueue", "Mean throughput (pods/s)") == "60"
    # Fleet: median of 120 and 80 against the median of 100 and 100.
    assert cell(report.fleet_table(run, previous), "default", "Mean throughput (pods/s)") == "100 (80–120) Δ +0.0%"
    built = report.build_report(run, previous)
    row = csv_row(built, "a", "default")
    assert (row["throughput_pods_per_s_previous"], row["throughput_pods_per_s_change_pct"]) == (100, 20.0)
    assert (row["throughput_pods_per_s_verdict"], row["throughput_pods_per_s_p_value"]) == ("no verdict possible", "")
    markdown = render.render_markdown(built)
    assert "Δ is the change against run r1" in markdown
    assert ("| a | default | throughput_pods_per_s | 100 | 120 | Δ +20.0% | no verdict possible: 1 vs 1 repeats: a "
            "two-sided rank test cannot reach p <= 0.05 (smallest p 1) | n/a | n/a |") in markdown
    assert '<td class="better">' not in render.render_html(built)


def write_repeats(scheduler_dir, throughputs, p99s, makespans):
    """One scheduler's repeats, the first in ``scheduler_dir`` and repeat k in repeat-<k>/."""
    for index, (throughput, p99, makespan) in enumerate(zip(throughputs, p99s, makespans)):
        directory = scheduler_dir if index == 0 else os.path.join(scheduler_dir, "repeat-%d" % (index + 1))
        write_result(directory, summary(throughput=throughput, makespan_s=makespan,
                                        latency={"p50": 10.0, "p90": 20.0, "p99": p99, "max": 50.0}),
                     (150,), env("h"))


@pytest.fixture(name="four_vs_four")
def fixture_four_vs_four(tmp_path):
    """Runs r1 and r2 of 4 repeats: throughput clearly up, p99 clearly up (worse), makespan the same."""
    write_repeats(str(tmp_path / "r1" / "h" / "default"), (100, 101, 102, 103), (30, 31, 32, 33), (1.5, 1.4, 1.6, 1.5))
    write_repeats(str(tmp_path / "r2" / "h" / "default"), (110, 111, 112, 113), (40, 41, 42, 43),
                  (1.45, 1.55, 1.5, 1.4))
    return run_data.load_run(str(tmp_path / "r2")), run_data.load_run(str(tmp_path / "r1"))


def test_only_a_significant_change_is_coloured_and_each_figure_gets_a_verdict(four_vs_four):
    run, previous = four_vs_four
    table = host_table(run, "h", previous)
    tone = {label: row_of(table, "default")[column(table, label)].tone
            for label in ("Mean throughput (pods/s)", "p99 (ms)", "Makespan (s)", "p50 (ms)")}
    assert tone == {"Mean throughput (pods/s)": "better", "p99 (ms)": "worse", "Makespan (s)": None, "p50 (ms)": None}

    built = report.build_report(run, previous)
    comparison = next(block for block in built.blocks if isinstance(block, report.Table) and "Verdict" in block.headers)
    rows = {row[2].text: [item.text for item in row] for row in comparison.rows}
    assert rows["throughput_pods_per_s"] == ["h", "default", "throughput_pods_per_s", "101.5 [100–103]",
                                             "111.5 [110–113]", "Δ +9.9%", "better", "0.029",
                                             "Mann-Whitney U, two-sided, exact"]
    assert rows["latency_p99_ms"][6:8] == ["worse", "0.029"]
    assert rows["makespan_s"][6:8] == ["no significant difference", "0.8"]
    # Every repeat bound 150 pods in both runs: all ties, no difference.
    assert rows["pods_bound"][6] == "no significant difference"
    assert "## Against run r1" in render.render_markdown(built)
    page = render.render_html(built)
    assert '<td class="better">better</td>' in page and '<td class="worse">worse</td>' in page
    row = csv_row(built, "h", "default")
    assert row["latency_p99_ms_verdict"] == "worse"
    assert row["latency_p99_ms_p_value"] == pytest.approx(2 / 70)


def test_fleet_verdict_takes_the_hosts_medians_as_samples(tmp_path):
    for run_id, throughput in (("r1", 100.0), ("r2", 200.0)):
        for host in ("a", "b", "c"):
            write_result(str(tmp_path / run_id / host / "default"), summary(throughput=throughput), (150,), env(host))
    run, previous = run_data.load_run(str(tmp_path / "r2")), run_data.load_run(str(tmp_path / "r1"))

    change = report.fleet_change(run, previous, "default", run_data.METRIC["throughput_pods_per_s"])
    assert change.verdict.verdict == "no verdict possible"
    assert "3 vs 3 repeats" in change.verdict.reason
    table = report.comparison_table(run, previous)
    hosts = [row[0].text for row in table.rows]
    # A row per figure the runs recorded, per host and for the fleet.
    assert hosts.count("fleet (median of hosts)") == hosts.count("a") == hosts.count("c") > 0


def test_gate_section_lists_every_check_passed_or_missed(tmp_path):
    write_three_repeats(str(tmp_path / "r" / "h" / "default"))
    gate, problems = sched_gate.parse_gate({"*": {"latency_p99_ms": "<= 25"},
                                            "default": {"throughput_pods_per_s": [">= 100", ">= 200"]}})
    assert problems == []
    built = report.build_report(run_data.load_run(str(tmp_path / "r")), gate=gate)
    markdown = render.render_markdown(built)

    assert "## Gate: missed" in markdown
    assert "3 checks of bench_gate: 2 missed." in markdown
    assert "| h | default | throughput_pods_per_s | 110 | >= 100 | passed |  |" in markdown
    assert "| h | default | throughput_pods_per_s | 110 | >= 200 | missed |  |" in markdown
    assert "| h | default | latency_p99_ms | 30 | <= 25 | missed |  |" in markdown
    assert markdown.index("## Gate") < markdown.index("## Fleet")
    assert '<td class="bad">missed</td>' in render.render_html(built)
    gate_summary = built.summary["gate"]
    assert (gate_summary["checks"], gate_summary["passed"]) == (3, 1)
    assert [miss["line"] for miss in gate_summary["missed"]] == [
        "gate missed: host h, scheduler default, throughput_pods_per_s = 110, threshold >= 200",
        "gate missed: host h, scheduler default, latency_p99_ms = 30, threshold <= 25"]


def test_no_gate_no_gate_section(tmp_path):
    write_three_repeats(str(tmp_path / "r" / "h" / "default"))
    built = report.build_report(run_data.load_run(str(tmp_path / "r")))
    assert built.summary["gate"] is None
    assert "## Gate" not in render.render_markdown(built)


def render_valid_png(chart):
    data = render.render_png(chart)
    assert data.startswith(PNG_SIGNATURE)
    pixels = matplotlib.image.imread(io.BytesIO(data), format="png")
    assert pixels.shape[:2] == (450, 800)
    # A blank canvas would be a single colour.
    assert pixels.reshape(-1, pixels.shape[2]).std(axis=0).max() > 0
    return True


def test_every_chart_is_a_valid_png_with_the_expected_series(two_hosts):
    built = report.build_report(run_data.load_run(str(two_hosts)))
    charts = {chart.file_name: chart for chart in built.charts}

    assert sorted(charts) == ["backlog-a.png", "backlog-b.png", "bound-a.png", "bound-b.png", "latency.png",
                              "throughput.png"]
    assert charts["bound-a.png"].series == {"default": ([0, 1, 2], [0, 112, 150]),
                                            "kueue": ([0, 1, 2, 3], [0, 40, 100, 150])}
    assert charts["bound-b.png"].series == {"default": ([0, 1, 2], [0, 90, 150])}
    assert charts["latency.png"].categories == ["default", "kueue"]
    assert charts["latency.png"].series["p50"] == [(47.3 + 10.0) / 2, 10.0]
    assert charts["latency.png"].ranges["p50"] == [(10.0, 47.3), None]
    assert charts["throughput.png"].categories == ["a", "b"]
    assert charts["throughput.png"].series == {"default": [120.0, 80.0], "kueue": [60.0, None]}
    for chart in charts.values():
        assert render_valid_png(chart), chart.file_name


def test_markdown_and_html_reference_the_charts_relatively(two_hosts):
    built = report.build_report(run_data.load_run(str(two_hosts)))
    markdown = render.render_markdown(built)
    page = render.render_html(built)

    for chart in built.charts:
        assert "](report-charts/%s)" % chart.file_name in markdown
        assert 'src="report-charts/%s"' % chart.file_name in page
    assert "<link" not in page and "<script" not in page


def test_latency_chart_switches_to_a_log_scale_for_queueing_schedulers(tmp_path):
    write_result(str(tmp_path / "r" / "h" / "default"), summary())
    write_result(str(tmp_path / "r" / "h" / "kueue"),
                 summary("kueue", latency={"p50": 5000.0, "p90": 9000.0, "p99": 12000.0, "max": 15000.0}))

    assert report.latency_chart(run_data.load_run(str(tmp_path / "r"))).log_scale


def test_host_names_unsafe_for_file_names_get_distinct_chart_files():
    assert report.chart_file_names(["a/b", "a:b", "c"]) == {
        "a/b": "bound-a_b.png", "a:b": "bound-a_b-2.png", "c": "bound-c.png"}


def test_loading_skips_partial_fetches_and_the_reports_own_charts(tmp_path):
    write_result(str(tmp_path / "r" / "h" / "default"), summary())
    write_result(str(tmp_path / "r" / "h" / "kueue.partial"), summary("kueue"))
    (tmp_path / "r" / run_data.CHARTS_DIR).mkdir()
    (tmp_path / "r" / run_data.CHARTS_DIR / "latency.png").write_bytes(b"")

    run = run_data.load_run(str(tmp_path / "r"))

    assert list(run.hosts) == ["h"]
    assert run.scheduler_names == ["default"]


def test_unreadable_summary_is_reported_not_raised(tmp_path):
    directory = tmp_path / "r" / "h" / "default"
    directory.mkdir(parents=True)
    (directory / "summary.json").write_text("{not json")

    table = host_table(run_data.load_run(str(tmp_path / "r")), "h")

    assert cell(table, "default", "Status").startswith("unreadable: summary.json is unreadable")


def test_a_directory_without_results_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no benchmark results"):
        run_data.load_run(str(tmp_path / "empty"))


def test_timeline_rows_that_do_not_parse_are_skipped():
    text = "second,created,created_total,bound,bound_total\n0,5,5,3,3\nx,1,1,1,1\n1,0,5,2,5\n"
    assert run_data.parse_timeline(text) == [(0, 3), (1, 5)]


@pytest.mark.parametrize("stat, text", [
    (run_data.Stat(None, None, None, 0), "n/a"),
    (run_data.Stat(150.0, 150.0, 150.0, 1), "150"),
    (run_data.Stat(1.246296, 1.246296, 1.246296, 1), "1.246"),
    (run_data.Stat(12345.6, 12000.0, 13000.0, 3), "12346 (12000–13000)"),
    (run_data.Stat(2.0, 2.0, 2.0, 3), "2"),
])
def test_format_stat(stat, text):
    assert report.format_stat(stat) == text


SIGNIFICANT_BETTER = sched_stats.Verdict("better", 0.01, "Mann-Whitney U, two-sided, exact")
NOT_SIGNIFICANT = sched_stats.Verdict("no significant difference", 0.4, "Mann-Whitney U, two-sided, exact")


@pytest.mark.parametrize("previous, current, higher_is_better, verdict, text, tone", [
    (100.0, 110.0, True, SIGNIFICANT_BETTER, "Δ +10.0%", "better"),
    (100.0, 110.0, True, NOT_SIGNIFICANT, "Δ +10.0%", None),
    (100.0, 110.0, False, None, "Δ +10.0%", None),
    (0.0, 3.0, True, SIGNIFICANT_BETTER, "Δ +3", "better"),
    (5.0, 5.0, True, NOT_SIGNIFICANT, "Δ +0.0%", None),
])
def test_format_change_and_only_a_significant_change_is_coloured(previous, current, higher_is_better, verdict, text,
                                                                  tone):
    change = report.Change(previous, current, higher_is_better, verdict)
    assert (report.format_change(change), change.tone) == (text, tone)


def run_report_playbook(*extra):
    environment = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
                       ANSIBLE_FORCE_COLOR="0", PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run(["ansible-playbook", "playbooks/report.yml"] + list(extra), cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.slow  # runs ansible-playbook
def test_report_playbook_writes_the_report_of_a_run_dir(tmp_path):
    run_dir = tmp_path / "results" / "20261201T000000Z"
    write_three_repeats(str(run_dir / "good" / "default"))
    write_failed(str(run_dir / "broken"), "Prepare the Go toolchain", "module proxy: connection refused")
    earlier = tmp_path / "results" / "20261130T000000Z"
    write_result(str(earlier / "good" / "default"), summary(throughput=88.0), (150,), env("good"))

    result = run_report_playbook("-e", "bench_report_run_dir=%s" % run_dir,
                                 "-e", "bench_report_compare_to=20261130T000000Z")
    assert result.returncode == 0, result.stdout + result.stderr

    markdown = (run_dir / "report.md").read_text()
    assert ("| default | 150 / 150 Δ +0.0% | 1.4 [1.2–1.5] Δ -6.7% | n/a | 110 [100–130] Δ +25.0% |"
            in markdown), markdown
    assert "No env.json from: broken." in markdown
    assert "## Host broken (failed at Prepare the Go toolchain)" in markdown
    assert "not run: host failed at Prepare the Go toolchain: module proxy: connection refused" in markdown
    rows = list(csv.DictReader((run_dir / "report.csv").open()))
    assert [(row["host"], row["status"]) for row in rows] == [("broken", "not run"), ("good", "complete")]
    assert json.loads((run_dir / "report.json").read_text())["gate"] is None
    charts = sorted(os.listdir(run_dir / run_data.CHARTS_DIR))
    assert charts == ["backlog-good.png", "bound-good.png", "latency.png", "throughput.png"]
    for name in charts:
        image = matplotlib.image.imread(str(run_dir / run_data.CHARTS_DIR / name))
        assert image.shape[:2] == (450, 800)

    again = run_report_playbook("-e", "bench_report_run_dir=%s" % run_dir,
                                "-e", "bench_report_compare_to=20261130T000000Z")
    assert again.returncode == 0 and "changed=0" in again.stdout, again.stdout


@pytest.mark.slow  # runs ansible-playbook
def test_report_playbook_explains_an_unknown_compare_to(tmp_path):
    run_dir = tmp_path / "results" / "20261201T000000Z"
    write_result(str(run_dir / "h" / "default"), summary())

    result = run_report_playbook("-e", "bench_report_run_dir=%s" % run_dir, "-e", "bench_report_compare_to=nope")

    assert result.returncode != 0
    assert "compare_to nope is neither a directory nor a run id in %s" % (tmp_path / "results") in result.stdout


def test_capacity_and_efficiency_are_shown_and_a_difference_is_noted(tmp_path):
    from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import capacity as sched_capacity
    seed = dict(nodes=100, node_cpu="32", node_memory="256Gi", node_pods=110, jobs=1000, pods_per_job=3,
                pod_cpu="1", pod_memory="200Mi", pod_duration=30.0, queue_quota="seed")
    run_dir = tmp_path / "r"
    write_result(str(run_dir / "a" / "default"),
                 summary(makespan_s=57.1, capacity=sched_capacity.capacity_summary(seed, "default", 57.1)),
                 env_doc=env("a"))
    write_result(str(run_dir / "a" / "kueue"),
                 summary("kueue", makespan_s=180.0, capacity=sched_capacity.capacity_summary(seed, "kueue", 180.0)),
                 env_doc=env("a", "kueue"))
    run = run_data.load_run(str(run_dir))
    built = report.build_report(run)

    table = host_table(run, "a")
    assert cell(table, "kueue", "Capacity; makespan bound") == "1000 CPU, 1000Gi (queue quota (seed)); bound 90 s"
    assert cell(table, "default", "Capacity; makespan bound") == "3200 CPU, 25Ti (cluster); bound 0 s"
    assert cell(table, "kueue", "Efficiency (bound / makespan)") == "0.5"
    assert cell(table, "default", "Efficiency (bound / makespan)") == "n/a"
    fleet = report.fleet_table(run)
    assert cell(fleet, "kueue", "Capacity; makespan bound") == "1000 CPU, 1000Gi (queue quota (seed)); bound 90 s"
    notes = [block.text for block in built.blocks if isinstance(block, report.Paragraph)]
    assert any(text.startswith("The schedulers did not have the same capacity: default had 3200 CPU, 25Ti; "
                               "kueue had 1000 CPU, 1000Gi.") for text in notes), notes
    row = csv_row(built, "a", "kueue")
    assert (row["capacity_cpu"], row["capacity_memory"], row["makespan_bound_s"], row["efficiency"]) == (
        1000, "1000Gi", 90, 0.5)


def test_no_capacity_note_when_every_scheduler_had_the_same(tmp_path):
    from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import capacity as sched_capacity
    work = dict(nodes=10, node_cpu="4", node_memory="16Gi", node_pods=110, jobs=30, pods_per_job=3,
                pod_cpu="1", pod_memory="200Mi", pod_duration=30.0, queue_quota="cluster")
    run_dir = tmp_path / "r"
    for scheduler in ("default", "kueue"):
        write_result(str(run_dir / "a" / scheduler),
                     summary(scheduler, makespan_s=80.0,
                             capacity=sched_capacity.capacity_summary(work, scheduler, 80.0)),
                     env_doc=env("a", scheduler))
    built = report.build_report(run_data.load_run(str(run_dir)))
    assert not any(isinstance(block, report.Paragraph) and "same capacity" in block.text for block in built.blocks)
    # 90 pods on 40 CPUs: the default scheduler in 3 waves of pods (60 s), Kueue in 3 waves of 13 jobs (60 s).
    assert cell(report.fleet_table(run_data.load_run(str(run_dir))), "kueue", "Efficiency (bound / makespan)") == "0.75"


def test_the_stage_that_bounded_the_throughput_and_the_backlog_are_shown(tmp_path):
    stage = {"stage": "pod creation", "evidence": "pods were created at 22.0/s and bound at 22.0/s"}
    run_dir = tmp_path / "r"
    document = summary()
    document["throughput_limited_by"] = stage
    write_result(str(run_dir / "a" / "default"), document, (50, 120, 150), env("a"))
    run = run_data.load_run(str(run_dir))
    assert run.result("a", "default").representative().backlog == [(0, 100), (1, 30), (2, 0)]
    built = report.build_report(run)

    assert cell(host_table(run, "a"), "default", "Throughput limited by") == "pod creation"
    paragraphs = [block.text for block in built.blocks if isinstance(block, report.Paragraph)]
    assert ("What bounded the throughput:\n- default: pod creation (pods were created at 22.0/s and bound at 22.0/s)"
            in paragraphs), paragraphs
    backlog = next(chart for chart in built.charts if chart.file_name == "backlog-a.png")
    assert backlog.series == {"default": ([1, 2, 3], [100, 30, 0])}


@pytest.mark.slow  # runs ansible-playbook
def test_report_playbook_fails_on_a_gate_miss_with_one_line_per_miss(tmp_path):
    run_dir = tmp_path / "results" / "20261201T000000Z"
    write_three_repeats(str(run_dir / "h" / "default"))
    gate_file = tmp_path / "gate.yml"
    gate_file.write_text('bench_gate:\n  "*": {latency_p99_ms: "<= 0.001", throughput_pods_per_s: ">= 100"}\n'
                         '  default: {makespan_s: ["<= 60", "<= 1"]}\n')

    result = run_report_playbook("-e", "bench_report_run_dir=%s" % run_dir, "-e", "@%s" % gate_file)

    assert result.returncode != 0, result.stdout
    assert "gate: 2 of 4 checks passed" in result.stdout
    for line in ("gate missed: host h, scheduler default, makespan_s = 1.4, threshold <= 1",
                 "gate missed: host h, scheduler default, latency_p99_ms = 30, threshold <= 0.001"):
        assert line in result.stdout, result.stdout
    assert "TASK [Fail when a figure missed the gate]" in result.stdout
    # The report is written all the same, with its Gate section.
    markdown = (run_dir / "report.md").read_text()
    assert "## Gate: missed" in markdown and "| h | default | latency_p99_ms | 30 | <= 0.001 | missed |" in markdown
    # report.json, the module's summary, keeps the outcome for the history (playbooks/history.yml).
    gate = json.loads((run_dir / "report.json").read_text())["gate"]
    assert (gate["checks"], gate["passed"], len(gate["missed"])) == (4, 2, 2)

    passing = run_report_playbook("-e", "bench_report_run_dir=%s" % run_dir,
                                  "-e", '{"bench_gate": {"default": {"latency_p99_ms": "<= 800"}}}')
    assert passing.returncode == 0, passing.stdout
    assert "gate: 1 of 1 checks passed" in passing.stdout


@pytest.mark.slow  # runs ansible-playbook
def test_report_playbook_refuses_a_bad_gate_in_one_line(tmp_path):
    run_dir = tmp_path / "results" / "20261201T000000Z"
    write_result(str(run_dir / "h" / "default"), summary())

    result = run_report_playbook("-e", "bench_report_run_dir=%s" % run_dir,
                                 "-e", '{"bench_gate": {"default": {"makespan_s": "worse_by <= 10%"}}}')

    assert result.returncode != 0
    assert ("bench_gate.default.makespan_s='worse_by <= 10%' is not allowed without an earlier run to compare with: "
            "set bench_report_compare_to, or use '>= N' or '<= N'") in result.stdout, result.stdout
    assert not (run_dir / "report.md").exists()


def test_host_calibration_is_shown_and_each_throughput_as_a_share_of_its_hosts_ceiling(tmp_path):
    from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import calibration as cal
    calibration = cal.measured({"api_create": cal.api_result([(498, 1.0), (512, 1.0), (505, 1.0)], 3, 6.321),
                                "api_binding": cal.binding_result([(400, 0.4), (400, 0.32), (400, 0.5)], 2.1),
                                "cpu": cal.cpu_result([(400, 1.0), (380, 1.0), (420, 1.0)], "3.11.7", 3.004)},
                               "night-1", 1_000_000)
    # Host b reuses a calibration measured 5.25 h before its run.
    reused = dict(calibration, reused=True, age_h=5.25)
    # The ceiling is 505 Jobs/s x 3 pods = 1515 pods/s: 120 pods/s is 0.0792 of it, 60 pods/s 0.0396.
    ceiling = calibration["api_create"]["ceiling_pods_per_s"]
    run_dir = tmp_path / "r"
    for host, throughput, kept in (("a", 120.0, calibration), ("b", 60.0, reused)):
        write_result(str(run_dir / host / "default"),
                     summary(throughput=throughput, share_of_host_ceiling=cal.share_of_ceiling(throughput, ceiling)),
                     env_doc=env(host, calibration=kept))
    write_result(str(run_dir / "c" / "default"), summary(throughput=90.0), env_doc=env("c"))
    run = run_data.load_run(str(run_dir))
    built = report.build_report(run)

    assert cell(host_table(run, "a"), "default", "Share of host ceiling") == "0.0792"
    assert cell(host_table(run, "c"), "default", "Share of host ceiling") == "n/a"
    assert cell(report.fleet_table(run), "default", "Share of host ceiling") == "0.0594 (0.0396–0.0792)"
    table = report.calibration_table(run)
    assert [cell(table, "a", header) for header in table.headers[1:]] == [
        "505 (498–512)", "2.8", "1515", "1000 (800–1250)", "400 (380–420)", "10", "3.11.7", "6.32 / 3",
        "this run, 1970-01-12T13:46:40Z"]
    assert cell(table, "b", "Measured") == "reused: run night-1, 1970-01-12T13:46:40Z (5.25 h before)"
    assert [cell(table, "c", header) for header in table.headers[1:]] == ["n/a"] * 9
    markdown = render.render_markdown(built)
    environment = markdown[markdown.index("## Environment"):]
    assert "### Host calibration" in environment and "| a | 505 (498–512) | 2.8 | 1515 |" in environment
    row = csv_row(built, "a", "default")
    assert (row["share_of_host_ceiling"], row["ceiling_pods_per_s"], row["cpu_passes_per_s"]) == (0.0792, 1515, 400)
    uncalibrated = csv_row(built, "c", "default")
    assert (uncalibrated["share_of_host_ceiling"], uncalibrated["ceiling_pods_per_s"]) == ("", "")


def test_no_calibration_table_when_no_host_measured_one(two_hosts):
    run = run_data.load_run(str(two_hosts))
    assert report.calibration_table(run) is None
    assert not any(isinstance(block, report.Heading) and block.text == "Host calibration"
                   for block in report.build_report(run).blocks)


def test_the_report_shows_where_the_time_went_from_phases_json(two_hosts):
    built = report.build_report(run_data.load_run(str(two_hosts)))
    assert "Where the time went" not in render.render_markdown(built)

    (two_hosts / "phases.json").write_text(json.dumps(
        {"run_id": "r2", "wall_s": 40.0, "hosts": {
            "a": {"phases_s": {"Go and builds": 10.0, "load test": 30.0}, "outside_load_test_s": 10.0},
            "b": {"phases_s": {"load test": 20.0, "waiting for other hosts": 20.0}, "outside_load_test_s": 20.0}}}))
    run = run_data.load_run(str(two_hosts))
    table = report.phases_table(run)
    assert table.headers == ["phase", "a", "b"]
    assert cell(table, "Go and builds", "a") == "10.0 s  25.0 %"
    assert cell(table, "load test", "b") == "20.0 s  50.0 %"
    assert cell(table, "outside the load test", "b") == "20.0 s  50.0 %"
    assert "## Where the time went (wall time 40.0 s)" in render.render_markdown(report.build_report(run))


def test_an_unreadable_phases_json_leaves_the_table_out(two_hosts):
    (two_hosts / "phases.json").write_text("[1, 2]")
    assert report.phases_table(run_data.load_run(str(two_hosts))) is None


def test_a_result_measured_on_a_busy_host_is_marked_and_the_gate_can_refuse_it(tmp_path):
    quiet = {"cpus": 2, "other_cpu_percent": 4.0, "busy": False, "threshold_percent": 25.0,
             "loadavg_before": 0.2, "loadavg_after": 0.9, "top_other": []}
    busy = dict(quiet, other_cpu_percent=61.0, busy=True, loadavg_after=2.9,
                top_other=[{"pid": 9, "name": "yes", "cpu_percent": 48.0}])
    for host, load in (("calm", quiet), ("noisy", busy)):
        doc = summary()
        doc["host_load"] = load
        write_result(str(tmp_path / "r" / host / "default"), doc, (150,), env(host))
    run = run_data.load_run(str(tmp_path / "r"))
    gate, _ = sched_gate.parse_gate({"*": {"throughput_pods_per_s": ">= 1"}})

    built = report.build_report(run, gate=gate, gate_busy="refuse")
    markdown = render.render_markdown(built)
    how = ("other processes used 61 % of the host's 2 CPUs (over the 25 % threshold; the busiest: yes 48 %), "
           "load average 0.2 before and 2.9 after")
    assert "Measured on a busy host (other processes above bench_busy_threshold; how busy under each host's " \
           "table): noisy/default." in markdown
    assert cell(host_table(run, "noisy"), "default", "Status") == "complete; busy host (61 % other CPU)"
    assert row_of(host_table(run, "noisy"), "default")[column(host_table(run, "noisy"), "Status")].tone == "bad"
    assert cell(host_table(run, "calm"), "default", "Status") == "complete"
    assert "Measured on a busy host (bench_busy_threshold):\n\n- default: " + how in markdown
    assert markdown.count("Measured on a busy host (bench_busy_threshold)") == 1
    assert (csv_row(built, "noisy", "default")["host_other_cpu_percent"], csv_row(built, "noisy", "default")["host_busy"],
            csv_row(built, "calm", "default")["host_busy"]) == (61, "true", "false")

    assert "## Gate: refused" in markdown
    assert "1 check of bench_gate: all passed. 1 result not judged: measured on a busy host" in markdown
    assert ("| noisy | default | (all) | 61 % other CPU | bench_gate_busy=refuse | refused | busy host in run r: "
            + how + " |") in markdown
    gate_summary = built.summary["gate"]
    assert (gate_summary["verdict"], gate_summary["checks"], gate_summary["missed"]) == ("refused", 1, [])
    assert [refusal["line"] for refusal in gate_summary["refused"]] == [
        "gate refused: host noisy, scheduler default was measured on a busy host in run r, %s; not judged "
        "(bench_gate_busy=refuse)" % how]

    judged = report.build_report(run, gate=gate)
    assert (judged.summary["gate"]["verdict"], judged.summary["gate"]["checks"]) == ("passed", 2)
