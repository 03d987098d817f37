"""A result directory carries its evidence: the fair-share, gang and priority figures (and the run's makespan,
throughput, peak and latency) recomputed from its fetched files alone by docs/metrics.md's definitions
(tests/recompute.py, written from the document, not from module_utils) equal the summary's.

The runs: the `contend` scenario of tests/e2e/test_scenario.py run for real on this machine by the default
scheduler (which preempted low-priority pods for the high-priority job and never held a gang whole) and by Volcano
(both gangs whole), their fetched files kept under fixtures/ (recorded 2026-12-03; the e2e test recomputes every
new run the same way); and the hand-made run of summary_samples.py written by the load test's own writer."""
import json
import os

import pytest
import recompute
import summary_samples
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import results as sched_load
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records
from result_checks import summary_problems

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
RUNS = ["contend-default", "contend-volcano"]


def summary_of(directory):
    with open(os.path.join(directory, "summary.json"), encoding="utf-8") as handle:
        return json.load(handle)


@pytest.mark.parametrize("run", RUNS)
def test_a_real_runs_figures_are_recomputed_from_its_files(run):
    directory = os.path.join(FIXTURES, run)
    summary = summary_of(directory)
    assert summary_problems(summary) == []
    assert sorted(os.listdir(directory)) == ["jobs.csv.gz", "pods.csv.gz", "scenario.json", "summary.json"]
    assert recompute.differences(directory, summary) == []


def test_the_real_runs_have_what_the_figures_need():
    """The default scheduler's run preempted pods and left gangs partial; Volcano's held both gangs whole: the
    recomputation above covers preemption, replacement, partial and full gangs."""
    default = summary_of(os.path.join(FIXTURES, "contend-default"))["scenario_metrics"]
    volcano = summary_of(os.path.join(FIXTURES, "contend-volcano"))["scenario_metrics"]
    assert default["priority"]["pods_preempted"] >= 1 and default["priority"]["work_lost_pod_s"] > 0
    assert default["gang"]["partial_gang_jobs"] >= 1
    assert volcano["gang"]["full_gangs"] == volcano["gang"]["gang_jobs"] == 2


def test_a_recomputation_that_disagrees_is_reported(tmp_path):
    directory = os.path.join(FIXTURES, "contend-default")
    summary = summary_of(directory)
    summary["scenario_metrics"]["fair_share"]["fairness_error"] += 0.01
    summary["scenario_metrics"]["priority"]["preempted_pods"] = []
    found = recompute.differences(directory, summary)
    assert len(found) == 2 and found[0].startswith("scenario_metrics.fair_share.fairness_error"), found


def test_the_hand_made_run_written_by_the_load_tests_writer_is_recomputed(tmp_path):
    summary, timeline, jobs, pods = summary_samples.scenario_run(tmp_path)[:4]
    scenario = summary_samples.scenario_run(tmp_path)[4]
    pod_rows = records.scenario_pod_rows(pods, jobs)
    job_rows = records.job_rows(jobs, pods)
    out = tmp_path / "result"
    sched_load.write_files(str(out), summary, sched_load._csv_text(records.SCENARIO_POD_FIELDS, pod_rows), timeline,
                           {"jobs.csv": sched_load._csv_text(records.JOB_FIELDS, job_rows),
                            "scenario.json": json.dumps(scenario)})
    assert {row["how_ended"] for row in pod_rows} == {"completed", "preempted", "cleanup"}
    assert recompute.differences(str(out), json.loads((out / "summary.json").read_text())) == []
