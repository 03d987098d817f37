"""The host section's Go profiles (plugin_utils/report/profiles.py): per scheduler with profiles.json, a table per
profile of its top functions by flat and by cumulative share, and a line for each profile that was not taken or read.
The profiles.json is the one the real run of fixtures/pprof/kube-scheduler-read.txt gives (test_pprof_top.py)."""
import json
import os

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import pprof_top
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import build as report
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import profiles, render
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import run as run_data
from report_fixtures import env, summary, write_result

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "pprof")
ENDPOINTS = {"scheduler": {"url": "https://127.0.0.1:1/debug/pprof"}, "apiserver": {"url": "https://127.0.0.1:2/debug/pprof"}}


def real_profiles():
    with open(os.path.join(FIXTURES, "kube-scheduler-read.txt"), encoding="utf-8") as handle:
        return pprof_top.profiles_document(ENDPOINTS, handle.read(), 5)


def write_run(run_dir, with_profiles=("default",)):
    """One host that ran default and volcano; profiles.json beside the results of ``with_profiles``."""
    for scheduler in ("default", "volcano"):
        directory = write_result(os.path.join(run_dir, "lab-01", scheduler), summary(scheduler), env_doc=env("lab-01"))
        if scheduler in with_profiles:
            document = real_profiles()
            if scheduler == "volcano":
                document["apiserver-cpu"] = {"file": "apiserver-cpu.pprof", "error": "not fetched (HTTP 401): denied"}
                document["apiserver-heap"] = {"skipped": "no address"}
            # As the play writes it (to_nice_json): its keys sorted.
            with open(os.path.join(directory, "profiles.json"), "w", encoding="utf-8") as out:
                json.dump(document, out, sort_keys=True, indent=4)
    return run_data.load_run(run_dir)


def host_blocks(run):
    blocks, _ = report.host_section(run, run.hosts["lab-01"], None, "bound.png", "backlog.png")
    return blocks


def test_each_profile_is_a_table_of_its_top_functions(tmp_path):
    blocks = host_blocks(write_run(str(tmp_path / "run")))
    headings = [block.text for block in blocks if isinstance(block, report.Heading)]
    assert headings[-1] == "Profiles of default"
    tables = [block for block in blocks if isinstance(block, report.Table) and block.headers[0] == "#"]
    assert [table.caption for table in tables] == [
        "default: kube-scheduler CPU, total 170 ms over 5 s (scheduler-cpu.pprof)",
        "default: kube-scheduler heap in use, total 10.8 MB (scheduler-heap.pprof)",
        "default: kube-apiserver CPU, total 2.1 s over 5 s (apiserver-cpu.pprof)",
        "default: kube-apiserver heap in use, total 71.1 MB (apiserver-heap.pprof)"]
    first = tables[0]
    assert first.headers == ["#", "By flat share", "Flat", "Flat %", "By cumulative share", "Cum", "Cum %"]
    assert len(first.rows) == profiles.TOP
    assert [cell.text for cell in first.rows[0]] == ["1", "syscall.Syscall6", "40 ms", "23.5 %",
                                                     "poll.(*FD).Write", "40 ms", "23.5 %"]
    names = [row[column].text for table in tables for row in table.rows for column in (1, 4)]
    assert max(len(name) for name in names) <= profiles.NAME_WIDTH
    # The note says what flat and cumulative mean, once per host.
    notes = [block.text for block in blocks if isinstance(block, report.Paragraph) and "flat share" in block.text]
    assert len(notes) == 1 and "cumulative share what was sampled in it and in everything it called" in notes[0]


def test_a_profile_not_taken_is_a_line_and_a_scheduler_without_profiles_has_no_section(tmp_path):
    blocks = host_blocks(write_run(str(tmp_path / "run"), with_profiles=("volcano",)))
    headings = [block.text for block in blocks if isinstance(block, report.Heading)]
    assert "Profiles of volcano" in headings and "Profiles of default" not in headings
    assert [block.text for block in blocks if isinstance(block, report.Paragraph)][-1] == (
        "Not shown:\n- apiserver-cpu: not fetched (HTTP 401): denied\n- apiserver-heap: no address")
    tables = [block for block in blocks if isinstance(block, report.Table) and block.headers[0] == "#"]
    assert len(tables) == 2


def test_a_run_without_profiles_has_no_profile_section(tmp_path):
    blocks = host_blocks(write_run(str(tmp_path / "run"), with_profiles=()))
    assert not any(isinstance(block, report.Heading) and block.text.startswith("Profiles") for block in blocks)
    assert not any(isinstance(block, report.Paragraph) and "flat share" in block.text for block in blocks)


def test_an_idle_cpu_profile_says_nothing_was_sampled():
    entry = {"file": "scheduler-cpu.pprof", "seconds": 5, "type": "cpu", "unit": "s", "total": 0.0, "functions": [],
             "functions_by_cum": []}
    result = run_data.SchedulerResult("lab-01", "kueue", [run_data.Sample(1, "/nowhere", profiles={"scheduler-cpu": entry})])
    blocks = profiles.scheduler_profile_blocks("lab-01", result, result.samples[0])
    assert blocks[-1].text == "Not shown:\n- scheduler-cpu: nothing was sampled (total 0 ms)"


@pytest.mark.parametrize("name, short", [
    ("k8s.io/kubernetes/pkg/scheduler.(*Scheduler).scheduleOne", "scheduler.(*Scheduler).scheduleOne"),
    ("runtime.mallocgc", "runtime.mallocgc"),
    ("slices.Sort[go.shape.[]k8s.io/api/core/v1.Pod,go.shape.int]", "slices.Sort[…]"),
    ("internal/sync.(*HashTrieMap[go.shape.interface {},go.shape.interface {}]).Load", "sync.(*HashTrieMap[…]).Load"),
    ("k8s.io/apiserver/pkg/server.DefaultBuildHandlerChain.TrackCompleted.trackCompleted.func24",
     "…lerChain.TrackCompleted.trackCompleted.func24"),
])
def test_function_names_are_shortened(name, short):
    assert profiles.short_name(name) == short
    assert len(profiles.short_name(name)) <= profiles.NAME_WIDTH


@pytest.mark.parametrize("value, unit, text", [
    (0.17, "s", "170 ms"), (2.1, "s", "2.1 s"), (0.0, "s", "0 ms"), (11348500.0, "B", "10.8 MB"),
    (524288.0, "B", "512 kB"), (100.0, "B", "100 B"), (3 * 2 ** 30, "B", "3 GB"), (1234.0, "", "1234"),
])
def test_amounts_in_their_units(value, unit, text):
    assert profiles.format_amount(value, unit) == text


@pytest.mark.slow
def test_the_profile_tables_fit_a_laptop(tmp_path):
    """Measured in headless Chromium (tests/infra/chromium.py), with names as long as the table takes."""
    from infra import chromium

    run = write_run(str(tmp_path / "run"))
    long_name = "k8s.io/apiserver/pkg/" + "VeryLongGeneratedHandlerName" * 5
    for entry in run.hosts["lab-01"].schedulers["default"].samples[0].profiles.values():
        for function in entry["functions"] + entry["functions_by_cum"]:
            function["function"] = long_name
    built = report.build_report(run)
    page = tmp_path / "report.html"
    page.write_text(render.render_html(built), encoding="utf-8")
    measured = chromium.layout(page)
    assert sum(1 for table in measured["tables"] if table["first_header"] == "#") == 4
    assert chromium.too_wide(measured) == []
