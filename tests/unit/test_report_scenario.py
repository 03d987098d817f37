"""The report's section of a scenario run (module_utils/sched_report_scenario.py and its blocks in sched_report)."""
import sched_report as report
import sched_report_run as run_data
from report_fixtures import env, summary, write_result

FAIR = {"covered_s": 10.0, "fairness_error": 0.25, "jain_index": 0.8,
        "tenants": {"a": {"weight": 1.0, "share": 0.75, "target": 0.5}, "b": {"weight": 1.0, "share": 0.25, "target": 0.5}},
        "series": [{"second": 0, "shares": {"a": 1.0, "b": 0.0}, "targets": {"a": 0.5, "b": 0.5}},
                   {"second": 1, "shares": {"a": 0.5, "b": 0.5}, "targets": {"a": 0.5, "b": 0.5}}]}
GANG = {"gang_jobs": 2, "full_gangs": 2, "time_to_full_gang_ms": {"p50": 1500.0}, "partial_gang_pod_s": 3.0}


def scenario_summary(scheduler, unsupported, findings, all_bound=4):
    document = summary(scheduler)
    document.update(scenario="two", unsupported=unsupported, findings=findings, scenario_metrics={
        "breakdown": {"jobs": 4, "jobs_all_bound": all_bound, "all_bound_ms": {"p50": 1200.0, "p99": 3000.0}},
        "utilization": {"peak_cpu_share": 0.875}, "fair_share": FAIR, "gang": GANG})
    return document


def test_a_scenario_gets_a_section_with_a_row_per_scheduler_and_a_share_chart(tmp_path):
    run_dir = tmp_path / "r"
    write_result(str(run_dir / "h" / "default"), scenario_summary("default", ["fair_share", "gang"], []), (4, 8),
                 env("h"))
    write_result(str(run_dir / "h" / "volcano"),
                 scenario_summary("volcano", [], ["the fairness error 0.250 is above fairness_error=0.1"], 3), (4, 8),
                 env("h", "volcano"))
    write_result(str(run_dir / "h" / "kueue"), summary("kueue"), (4, 8), env("h", "kueue"))   # a burst: no section
    built = report.build_report(run_data.load_run(str(run_dir)))
    start = next(index for index, block in enumerate(built.blocks)
                 if isinstance(block, report.Heading) and block.text == "Scenario two")
    table = next(block for block in built.blocks[start:] if isinstance(block, report.Table))
    rows = {row[0].text: [cell.text for cell in row] for row in table.rows}
    assert set(rows) == {"default", "volcano"}
    assert rows["default"][1:] == ["4 / 4", "1200.0 / 3000.0", "unsupported: 0.250 (0.800)",
                                   "unsupported: 2/2; 1500.0; 3.0", "n/a", "0.875",
                                   "fair_share, gang", "none"]
    assert rows["volcano"][1:] == ["3 / 4", "1200.0 / 3000.0", "0.250 (0.800)", "2/2; 1500.0; 3.0", "n/a", "0.875",
                                   "none", "the fairness error 0.250 is above fairness_error=0.1"]
    volcano = next(row for row in table.rows if row[0].text == "volcano")
    assert (volcano[1].tone, volcano[-1].tone) == ("bad", "bad")
    charts = {chart.file_name: chart for chart in built.charts}
    share = charts["share-two-h-volcano.png"]
    assert share.series["a share"] == ([0, 1], [1.0, 0.5]) and share.series["b target"] == ([0, 1], [0.5, 0.5])
    assert "share-two-h-default.png" in charts
