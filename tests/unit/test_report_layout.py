"""The report's HTML as a laptop shows it, measured in headless Chromium (tests/infra/chromium.py): a large run (seven
hosts, the five schedulers, three repeats, an earlier run to compare with, a gate, a failure with a long path) gives
no table wider than 1,280 px, and lists render as lists."""
import json
import os
import re

import pytest
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import build as report
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import gate as sched_gate
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import render
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import run as run_data
from infra import chromium
from report_fixtures import env, summary, write_failed, write_result

pytestmark = pytest.mark.slow  # starts Chromium

HOSTS = ["lab-%s%02d.example.internal" % (rack, number) for rack in "au" for number in range(1, 5)][:7]
SCHEDULERS = {"default": "v1.32.2", "kueue": "v0.10.1", "volcano": "v1.11.0", "yunikorn": "v1.6.1",
              "coscheduling": "v0.32.7"}
LONG_MESSAGE = ("the scheduler did not become ready within 300 s; its log: /home/bench/kube-sched-bench/clusters/"
                "bench/logs/vc-scheduler-and-its-controller-manager.log")


def write_run(run_dir, scale):
    """Every host ran every scheduler three times; lab-u03 failed volcano; the kernels differ between racks."""
    for host_index, host in enumerate(HOSTS):
        for scheduler_index, (scheduler, version) in enumerate(SCHEDULERS.items()):
            if host == HOSTS[-1] and scheduler == "volcano":
                continue
            for repeat in (1, 2, 3):
                directory = os.path.join(run_dir, host, scheduler)
                if repeat > 1:
                    directory = os.path.join(directory, "repeat-%d" % repeat)
                throughput = scale * (100.0 + 7.3 * host_index + 11.1 * scheduler_index + 3.7 * repeat)
                host_env = env(host, scheduler, kernel="6.1.0-%d" % (host_index % 3),
                               calibration={"api_create": {"ceiling_pods_per_s": 1515.0}})
                host_env["versions"]["scheduler"] = {"version": version}
                host_env["workload"]["repeats"] = 3
                write_result(directory, summary(
                    scheduler, throughput=throughput, makespan_s=3000.0 / throughput, peak=round(throughput * 1.3),
                    latency={"p50": 12.34 * repeat, "p90": 45.67, "p99": 123.4 + repeat, "max": 4567.8},
                    cost={"cpu_seconds": 12.345, "peak_rss_mb": 234.56}, share_of_host_ceiling=throughput / 1515.0,
                    capacity={"capacity": {"cpu": 3200.0, "memory": "25Ti", "limited_by": "queue quota (seed)"},
                              "makespan_bound": {"seconds": 12.5}, "efficiency": 0.4567}),
                    (int(throughput), 3000), host_env)
    write_failed(os.path.join(run_dir, HOSTS[-1]), "Run the scheduler", "a scheduler failed",
                 {"volcano": {"task": "Wait for the scheduler", "msg": LONG_MESSAGE}})
    with open(os.path.join(run_dir, "phases.json"), "w", encoding="utf-8") as out:
        json.dump({"run_id": os.path.basename(run_dir), "wall_s": 600.0, "hosts": {
            host: {"phases_s": {"Go and builds": 100.0, "load test": 400.0}, "outside_load_test_s": 200.0}
            for host in HOSTS}}, out)


@pytest.fixture(name="large_report", scope="module")
def fixture_large_report(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    write_run(str(results / "night-1"), 1.0)
    write_run(str(results / "night-2"), 1.08)
    gate, problems = sched_gate.parse_gate({"*": {"latency_p99_ms": "<= 100", "makespan_s": "worse_by <= 5%"}},
                                           compared=True)
    assert problems == []
    built = report.build_report(run_data.load_run(str(results / "night-2")),
                                run_data.load_run(str(results / "night-1")), gate)
    return built, results


def test_no_table_of_a_large_report_is_wider_than_a_laptop(large_report):
    built, results = large_report
    page = results / "report.html"
    page.write_text(render.render_html(built), encoding="utf-8")

    measured = chromium.layout(page)

    assert measured["viewport"] == 1280
    assert chromium.too_wide(measured) == []
    captions = [table["caption"] for table in measured["tables"]]
    # The fleet and every host: three tables each, led by the scheduler.
    assert captions.count("Throughput and makespan") == captions.count("Capacity, cost and status") == 1 + len(HOSTS)
    # Seven hosts side by side: two tables of at most four hosts (where the time went, what differs between hosts).
    assert sum(1 for table in measured["tables"] if table["first_header"] == "phase") == 2


def test_the_same_report_with_its_tables_whole_would_not_fit(large_report):
    """The measurement can fail: the host table as one table (17 columns) is wider than the laptop."""
    built, results = large_report
    run = run_data.load_run(str(results / "night-2"))
    whole = report.build_report(run)
    whole.blocks = [report.host_table(run, HOSTS[0], run_data.load_run(str(results / "night-1")))]
    page = results / "whole.html"
    page.write_text(render.render_html(whole), encoding="utf-8")

    assert chromium.too_wide(chromium.layout(page)) != []


def test_what_bounded_the_throughput_and_the_failures_are_lists(large_report, tmp_path):
    built, _ = large_report
    built.blocks += [report.Paragraph("What bounded the throughput:\n- default: pod creation (evidence)\n"
                                      "- kueue: the scheduler (evidence)")]
    page = tmp_path / "report.html"
    page.write_text(render.render_html(built), encoding="utf-8")

    dom = chromium.dom(page)

    assert re.search(r"<p>What bounded the throughput:</p>\s*<ul><li>default: pod creation \(evidence\)</li>"
                     r"<li>kueue: the scheduler \(evidence\)</li></ul>", dom), dom[-3000:]
    failures = dom[dom.index('id="failures"'):]
    assert failures.index("<ul><li>") < failures.index("</ul>") < failures.index("<h2")
