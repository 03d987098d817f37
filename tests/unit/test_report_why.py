"""The host section's "why" (plugin_utils/report/why.py) on the stored real run of fixtures/why/ (every scheduler,
test_recompute_internals.py): where the host's CPU went, who asked the API server what, what each scheduler's own
metrics say, a paragraph on the fastest and the slowest, and all of it within a laptop's 1,280 px."""
import json
import os
import shutil

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.components import COMPONENTS
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import build as report
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import render, why
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import run as run_data
from infra import chromium

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "why")


@pytest.fixture(name="stored_run")
def fixture_stored_run(tmp_path):
    """The stored run as a results directory: results/<run>/lab-01/<scheduler>/."""
    for scheduler in os.listdir(FIXTURES):
        shutil.copytree(os.path.join(FIXTURES, scheduler), tmp_path / "why" / "lab-01" / scheduler)
    return run_data.load_run(str(tmp_path / "why"))


def summaries(run):
    return {name: run.hosts["lab-01"].schedulers[name].representative().summary for name in run.scheduler_names}


def test_the_why_section_has_its_three_tables_and_says_who_was_fastest_and_why(stored_run):
    blocks = why.why_blocks(stored_run, "lab-01")
    assert isinstance(blocks[0], report.Heading) and blocks[0].text == "Why each scheduler is as fast as it is"
    tables = [block for block in blocks if isinstance(block, report.Table)]
    cpu, requests, internals = tables
    assert cpu.headers == ["Scheduler"] + list(COMPONENTS) + ["others"]
    assert [row[0].text for row in cpu.rows] == stored_run.scheduler_names
    found = summaries(stored_run)
    default_cost = {row["component"]: row for row in found["default"]["component_cost"]["components"]}
    default_row = next(row for row in cpu.rows if row[0].text == "default")
    assert default_row[2].text == "%.1f %% (%.2f ms)" % (default_cost["kube-apiserver"]["share_of_host_percent"],
                                                         default_cost["kube-apiserver"]["cpu_ms_per_pod"])
    assert [row[1].text for row in requests.rows] == ["%.2f" % found[name]["api_requests"]["per_bound_pod"]
                                                      for name in stored_run.scheduler_names]
    processes = {(row[0].text, row[1].text) for row in internals.rows}
    assert ("kueue", "kueue") in processes and ("volcano", "vc-scheduler") in processes
    ranked = sorted(found, key=lambda name: -found[name]["throughput_pods_per_s"])
    text = [block.text for block in blocks if isinstance(block, report.Paragraph)][1]
    assert text.startswith("%s bound %.1f pods/s and %s %.1f pods/s" % (
        ranked[0], found[ranked[0]]["throughput_pods_per_s"], ranked[-1], found[ranked[-1]]["throughput_pods_per_s"]))
    assert "own processes used" in text and "API requests per pod" in text and "spent its time in" in text


def test_a_run_without_the_figures_has_no_why_section(stored_run):
    for result in stored_run.hosts["lab-01"].schedulers.values():
        for sample in result.samples:
            for key in ("internals", "component_cost", "api_requests"):
                sample.summary[key] = None
    assert why.why_blocks(stored_run, "lab-01") == []


@pytest.mark.slow
def test_the_why_section_fits_a_laptop(stored_run, tmp_path):
    built = report.build_report(stored_run)
    assert any(isinstance(block, report.Heading) and block.text.startswith("Why") for block in built.blocks)
    page = tmp_path / "report.html"
    page.write_text(render.render_html(built), encoding="utf-8")
    measured = chromium.layout(page)
    assert measured["viewport"] == 1280
    assert chromium.too_wide(measured) == []
    captions = [table["caption"] for table in measured["tables"]]
    assert any(caption.startswith("Where the host's CPU went") for caption in captions), captions


def test_the_stored_summaries_are_the_loaded_ones(stored_run):
    with open(os.path.join(FIXTURES, "default", "summary.json"), encoding="utf-8") as handle:
        assert summaries(stored_run)["default"] == json.load(handle)
