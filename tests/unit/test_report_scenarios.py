"""The report's scenario sections, from run directories whose summaries carry real scenario metrics."""
import csv
import io
import json
import os

from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import findings, metrics
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import build as report
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import render
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import run as run_data
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import scenarios as scenario_report
from report_fixtures import summary, write_result
from test_report import render_valid_png

S = 1_000_000
GI = 2 ** 30
CLUSTER = {"nodes": 1, "node_cpu": "4", "node_memory": "16Gi", "node_pods": 110}
SCENARIO = {"name": "fair-share", "cluster": CLUSTER, "tenants": {"a": 1, "b": 1},
            "thresholds": {"fairness_error": 0.1}}


def job(name, tenant, created=0.0, pods=1, gang=False):
    return {"name": name, "tenant": tenant, "priority": 0, "gang": gang, "pods_per_job": pods, "pod_millicores": 1000,
            "pod_memory_bytes": GI, "pod_duration": 10.0, "arrival_s": 0.0, "created_us": int(created * S),
            "admitted_us": None}


def pod(job_name, name, bound):
    return {"job": job_name, "pod": name, "node": "n0", "created_us": 0, "bound_us": int(bound * S), "ended_us": None}


def fair_run():
    # Four 1-CPU jobs of each tenant, all created at 0 s on a 4-CPU node; every pod runs 10 s.
    # "fair": a-0, a-1, b-0, b-1 bound at 1 s, the rest at 11 s: shares 1/2 and 1/2, as the targets.
    # "greedy": the four jobs of a bound at 1 s, those of b at 11 s: from 1 to 11 s a has all the CPU while both
    #   ask (target 1/2 each: error (|1 - 1/2| + |0 - 1/2|) / 2 = 1/2). The run's window ends at its last event,
    #   the bindings at 11 s, so the error is 0.5 and a's share 1 against a target of 1/2.
    jobs = [job("a-%d" % index, "a") for index in range(4)] + [job("b-%d" % index, "b") for index in range(4)]
    fair = [pod("a-%d" % i, "a-%d-0" % i, 1 if i < 2 else 11) for i in range(4)] + [
        pod("b-%d" % i, "b-%d-0" % i, 1 if i < 2 else 11) for i in range(4)]
    greedy = [pod("a-%d" % i, "a-%d-0" % i, 1) for i in range(4)] + [pod("b-%d" % i, "b-%d-0" % i, 11) for i in range(4)]
    return jobs, {"fair": fair, "greedy": greedy}


def write_scenario_result(directory, scheduler, jobs, pods, unsupported=()):
    measured, rows = metrics.scenario_metrics(SCENARIO, jobs, pods)
    document = summary(scheduler=scheduler, pods_bound=len(pods), pods_expected=len(pods))
    document.update(scenario={"name": SCENARIO["name"]}, scenario_metrics=measured, unsupported=list(unsupported),
                    findings=findings.findings(SCENARIO["thresholds"], measured, unsupported))
    write_result(directory, document)
    with open(os.path.join(directory, "jobs.csv"), "w", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    with open(os.path.join(directory, "pods.csv"), "w", encoding="utf-8") as out:
        out.write("job,pod,node,created,bound,latency_ms\n")
        for entry in pods:
            out.write("%s,%s,n0,0,%d,%.3f\n" % (entry["job"], entry["pod"], entry["bound_us"], entry["bound_us"] / 1000))
    return measured


def build(tmp_path, unsupported=()):
    jobs, runs = fair_run()
    for scheduler, pods in runs.items():
        write_scenario_result(str(tmp_path / "r" / "h" / scheduler), scheduler, jobs, pods,
                              unsupported if scheduler == "greedy" else ())
    return report.build_report(run_data.load_run(str(tmp_path / "r")))


def table_after(built, heading_text):
    index = next(i for i, block in enumerate(built.blocks)
                 if isinstance(block, report.Heading) and block.text.startswith(heading_text))
    return built.blocks[index + 1]


def test_fair_share_section_compares_the_schedulers_with_their_fairness_error(tmp_path):
    built = build(tmp_path)
    table = table_after(built, "Fair share")
    errors = {row[1].text: row[table.headers.index("Fairness error (0 = perfect)")].text for row in table.rows}
    assert errors == {"fair": "0", "greedy": "0.5"}
    markdown = render.render_markdown(built)
    assert "## Scenario fair-share" in markdown
    # The greedy scheduler broke the scenario's promise (fairness_error 0.1): a finding, not a failed run.
    assert "greedy on h: the fairness error 0.500 is above fairness_error=0.1" in markdown
    assert "fair on h:" not in markdown


def test_each_tenants_share_against_its_target(tmp_path):
    built = build(tmp_path)
    tables = [block for block in built.blocks if isinstance(block, report.Table) and "Tenant" in block.headers]
    assert len(tables) == 1
    rows = {(row[1].text, row[2].text): [cell.text for cell in row[3:6]] for row in tables[0].rows}
    # fair: 1/2 and 1/2 all along. greedy: a holds everything from 1 to 11 s while its target is 1/2.
    assert rows[("fair", "a")] == ["1", "0.5", "0.5"]
    assert rows[("greedy", "a")] == ["1", "1", "0.5"]
    assert rows[("greedy", "b")] == ["1", "0", "0.5"]


def test_a_feature_the_scheduler_cannot_express_is_said_not_hidden(tmp_path):
    built = build(tmp_path, unsupported=["fair_share"])
    markdown = render.render_markdown(built)
    assert "greedy on h cannot express: fair_share" in markdown
    table = table_after(built, "Fair share")
    support = {row[1].text: row[2].text for row in table.rows}
    assert support["fair"] == "yes" and support["greedy"].startswith("no")
    # Its promise is not its own: no finding for it.
    assert "fairness error 0.500 is above" not in markdown


def test_scenario_charts_are_drawn(tmp_path):
    built = build(tmp_path)
    charts = {chart.file_name: chart for chart in built.charts}
    assert {"share-h-fair.png", "share-h-greedy.png", "breakdown-h.png", "pod-latency-cdf-h.png"} <= set(charts)
    share = charts["share-h-greedy.png"]
    assert share.series["a"] == (list(range(1, 11)), [1.0] * 10) and share.targets["a"][1] == [0.5] * 10
    # CDF of pod latency: eight pods of greedy, four at 1 s and four at 11 s.
    xs, ys = charts["pod-latency-cdf-h.png"].series["greedy"]
    assert xs == [1.0] * 4 + [11.0] * 4 and ys[3] == 0.5 and ys[-1] == 1.0
    for chart in charts.values():
        assert render_valid_png(chart), chart.file_name


def test_gang_section_and_its_cdf(tmp_path):
    # One gang of 2 pods bound at 1 and 3 s: time to full gang 3000 ms.
    jobs = [job("g", "default", pods=2, gang=True)]
    pods = [pod("g", "g-0", 1), pod("g", "g-1", 3)]
    scenario = dict(SCENARIO, name="gang", tenants={"default": 1}, thresholds={"stuck_partial_s": 1})
    measured, rows = metrics.scenario_metrics(scenario, jobs, pods)
    directory = str(tmp_path / "r" / "h" / "volcano")
    document = summary(scheduler="volcano", pods_bound=2, pods_expected=2)
    document.update(scenario="gang", scenario_metrics=measured, unsupported=[],
                    findings=findings.findings(scenario["thresholds"], measured))
    write_result(directory, document)
    # jobs.csv: the breakdown's rows and the time the gang first held both pods, 3 s.
    rows[0]["full_gang_ms"] = 3000.0
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    with open(os.path.join(directory, "jobs.csv"), "w", encoding="utf-8") as out:
        out.write(buffer.getvalue())
    built = report.build_report(run_data.load_run(str(tmp_path / "r")))
    table = table_after(built, "Gangs")
    assert table.rows[0][table.headers.index("Time to full gang p50 (ms)")].text == "3000"
    assert table.rows[0][table.headers.index("Stuck partial")].text == "1"
    cdf = {chart.file_name: chart for chart in built.charts}["gang-cdf-h.png"]
    assert cdf.series == {"volcano": ([3.0], [1.0])}
    # A gang never whole keeps the curve below 1 by its share: 3 gangs, one full at 2 s, one at 5 s, one never.
    assert scenario_report.cdf([5.0, None, 2.0]) == ([2.0, 5.0], [1 / 3, 2 / 3])
    assert "volcano on h: 1 gang jobs stayed partly bound longer than stuck_partial_s=1: g" in render.render_markdown(built)


def test_a_burst_run_has_no_scenario_section(tmp_path):
    write_result(str(tmp_path / "r" / "h" / "default"), summary())
    built = report.build_report(run_data.load_run(str(tmp_path / "r")))
    assert scenario_report.scenario_blocks(run_data.load_run(str(tmp_path / "r"))) == ([], [])
    assert "Scenario" not in render.render_markdown(built)
    assert json.dumps(built.summary)
