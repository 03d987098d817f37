"""A result directory carries its evidence: every figure of summary.json but those docs/metrics.md lists as measured
from outside the files, recomputed from its fetched files alone by docs/metrics.md's definitions (tests/recompute.py,
written from the document, not from module_utils), equals the summary's, and one it can neither recompute nor find
in that list is a difference.

The runs: the `contend` scenario of tests/e2e/test_scenario.py run for real on this machine by the default
scheduler (which preempted low-priority pods for the high-priority job and never held a gang whole) and by Volcano
(both gangs whole), recorded 2026-12-03 (schema version 2); the burst of each of the five schedulers kept for the
why fixtures (2026-12-05); the shipped fair-share scenario at 1/8 on the default scheduler and Kueue, and the burst as
a held backlog on both (tests/e2e/test_shipped_scenarios.py, 2026-12-06, schema version 3: events, held times,
checks); the e2e tests recompute every new run the same way. And the hand-made run of summary_samples.py written by
the load test's own writer."""
import json
import os
import types

import pytest
import recompute
import recompute_figures
import summary_samples
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import results as sched_load
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records
from result_checks import summary_problems

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
RUNS = ["contend-default", "contend-volcano", "fair-share-default", "fair-share-kueue", "burst-backlog-default",
        "burst-backlog-kueue"]
WHY_RUNS = [os.path.join("why", scheduler) for scheduler in ("coscheduling", "default", "kueue", "volcano", "yunikorn")]


def summary_of(directory):
    with open(os.path.join(directory, "summary.json"), encoding="utf-8") as handle:
        return json.load(handle)


@pytest.mark.parametrize("run", RUNS + WHY_RUNS)
def test_a_real_runs_figures_are_recomputed_from_its_files(run):
    """Every figure but those docs/metrics.md lists as measured from outside the files, on the contend runs and on
    the burst each of the five schedulers ran for the why fixtures (hack/why_fixture.py)."""
    directory = os.path.join(FIXTURES, run)
    summary = summary_of(directory)
    assert summary_problems(summary) == []
    assert {"jobs.csv.gz", "pods.csv.gz", "scenario.json", "summary.json"} <= set(os.listdir(directory))
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
                            "scenario.json": json.dumps(dict(scenario, events=summary_samples.EVENTS))})
    assert {row["how_ended"] for row in pod_rows} == {"completed", "preempted", "cleanup"}
    assert recompute.differences(str(out), json.loads((out / "summary.json").read_text())) == []


def test_the_load_tests_own_moments_are_written_as_events():
    """scenario.json's events (docs/metrics.md#events): the submission window on the load test's clock, and the
    release on the audit log's clock when it has the marker, else on the load test's."""
    start = 1_800_000_000 * 1_000_000
    stub = types.SimpleNamespace(submit_start_us=start, submit_end_us=start + 2_500_000, release_us=start + 3_000_000)
    open_loop = sched_load.Results.clock_events(stub, None, "audit")
    assert open_loop == [{"event": "submit_start", "at": "2027-01-15T08:00:00.000000Z", "clock": "load test"},
                         {"event": "submit_end", "at": "2027-01-15T08:00:02.500000Z", "clock": "load test"}]
    audited = sched_load.Results.clock_events(stub, start + 2_999_000, "audit")[-1]
    assert audited == {"event": "release", "at": "2027-01-15T08:00:02.999000Z", "clock": "audit"}
    assert sched_load.Results.clock_events(stub, start + 3_000_000, "watch")[-1]["clock"] == "load test"
    moments = recompute_figures.events({"events": open_loop})
    assert (moments["submit_end"] - moments["submit_start"]) / 1e6 == 2.5


def test_a_figure_the_files_cannot_give_is_a_difference(tmp_path):
    """Without scenario.json's events a version 3 summary's submission rate cannot be recomputed; a key nobody
    defined is neither recomputed nor listed as measured outside the files; version 2 files lack what version 3
    adds and are recomputed without it."""
    summary, timeline, jobs, pods, scenario = summary_samples.scenario_run(tmp_path)[:5]
    out = tmp_path / "result"
    sched_load.write_files(str(out), summary, sched_load._csv_text(records.SCENARIO_POD_FIELDS,
                                                                   records.scenario_pod_rows(pods, jobs)), timeline,
                           {"jobs.csv": sched_load._csv_text(records.JOB_FIELDS, records.job_rows(jobs, pods)),
                            "scenario.json": json.dumps(scenario)})
    written = json.loads((out / "summary.json").read_text())
    assert recompute.differences(str(out), written) == ["submit_rate_jobs_per_s: recomputed None, summary 80.0"]
    written["checks"][0]["verdict"] = "met"
    written["scenario_metrics"]["gang"]["brand_new"] = 1
    assert recompute.differences(str(out), written)[1:] == [
        "checks[0].verdict: recomputed 'unsupported', summary 'met'",
        "scenario_metrics.gang.brand_new: neither recomputed nor listed as measured from outside the files"]
    older = dict(json.loads((out / "summary.json").read_text()), schema_version=2)
    del older["checks"]
    assert recompute.differences(str(out), older) == []


@pytest.mark.parametrize("scheduler", ["default", "kueue"])
def test_a_real_version_3_run_carries_what_its_clock_and_watch_decided(scheduler):
    """The shipped fair-share scenario at 1/8 (tests/e2e/test_shipped_scenarios.py, recorded 2026-12-06) on the
    default scheduler, which cannot express fair sharing, and on Kueue, which missed the threshold by a little:
    scenario.json's events give the submission rate, pods.csv's completed column pods_completed, and the findings
    are the checks' sentences."""
    directory = os.path.join(FIXTURES, "fair-share-" + scheduler)
    summary = summary_of(directory)
    assert summary["schema_version"] == 3
    jobs, pods, scenario = recompute.load(directory)
    moments = recompute_figures.events(scenario)
    assert [event["clock"] for event in scenario["events"]] == ["load test", "load test"]
    window_s = (moments["submit_end"] - moments["submit_start"]) / 1e6
    assert summary["submit_rate_jobs_per_s"] == round(len(jobs) / window_s, 3) == round(
        summary["jobs_submitted"] / window_s, 3)
    assert summary["pods_completed"] == sum(pod["completed"] is not None for pod in pods) > 0
    assert all(pod["held_created"] is None for pod in pods) and summary["backlog"] is None
    (check,) = summary["checks"]
    assert (check["threshold"], check["limit"]) == ("fairness_error", scenario["thresholds"]["fairness_error"])
    assert check["measured"] == summary["scenario_metrics"]["fair_share"]["fairness_error"]
    if scheduler == "default":
        assert (check["verdict"], check["finding"], summary["findings"]) == ("unsupported", None, [])
        assert summary["unsupported"] == ["fair_share"]
    else:
        assert check["verdict"] == "missed" and check["measured"] > check["limit"]
        assert summary["findings"] == [check["finding"]] and summary["unsupported"] == []


@pytest.mark.parametrize("scheduler", ["default", "kueue"])
def test_a_real_held_backlog_keeps_its_true_creation_times(scheduler):
    """The seed's burst of 12 jobs x 2 pods held until it existed (tests/e2e/test_shipped_scenarios.py, recorded
    2026-12-06): on the default scheduler every pod was created before the release, on Kueue only the jobs (their pods
    appear once admitted). The files time each from the release and keep the true times in held_created, which give
    the summary's backlog; the release is scenario.json's event on the audit log's clock."""
    directory = os.path.join(FIXTURES, "burst-backlog-" + scheduler)
    summary = summary_of(directory)
    jobs, pods, scenario = recompute.load(directory)
    release = recompute_figures.events(scenario)["release"]
    assert scenario["events"][-1]["clock"] == "audit" and summary["backlog"]["release"] == recompute.text(release)
    held = [pod["held_created"] for pod in pods if pod["held_created"] is not None]
    held_jobs = [job["held_created"] for job in jobs.values() if job["held_created"] is not None]
    assert (len(held), len(held_jobs)) == ((24, 12) if scheduler == "default" else (0, 12))
    assert (summary["backlog"]["pods_held"], summary["backlog"]["jobs_held"]) == (len(held), len(held_jobs))
    assert summary["backlog"]["created_from"] == recompute.text(min(held + held_jobs))
    assert summary["backlog"]["created_until"] == recompute.text(max(held + held_jobs)) < summary["backlog"]["release"]
    # What the files time from the release: every pod, and each job's creation.
    assert all(pod["created"] >= release for pod in pods) and all(job["created"] >= release for job in jobs.values())
    assert summary["start"] == recompute.text(release)
    assert summary["throughput_limited_by"]["stage"] == ("scheduling" if scheduler == "default" else "admission")
