"""Every shipped scenario (issue 13) at an eighth of its size (bench_scenario_scale) through bench.yml on the default
scheduler and Kueue in one run, gang and mixed on coscheduling, a gang scheduler, too (the other
schedulers run a scenario of the test's own in test_scenario.py): every job bound, the scenario's own metrics
measured, every figure of summary.json recomputed from the files (tests/recompute.py, issue 55), the report's section
written. The seed's burst likewise, as a held backlog. And a wait that runs out is a finding of the run, not a
failure of it."""
import os

import pytest
import recompute
from conftest import failure_text, mirror_vars, read_rows, run_playbook, scheduler_results

SCALE = 0.125
# The schedulers each scenario runs on (one run each): the default scheduler and Kueue, whose figures are recomputed
# from their files (issue 55), and a gang scheduler besides for the gangs and for a mix of sizes.
DEFAULT = ["default", "kueue"]
SCHEDULERS = {"gang": ["coscheduling"] + DEFAULT, "mixed": ["coscheduling"] + DEFAULT}
# At 1/8, worked out from scenarios/*.yml: (fake nodes, jobs, the scenario_metrics sections the scenario has).
#   gang: 16 nodes -> 2; 12, 8 and 4 gangs -> 2, 1 and 1 (0.5 rounds to 0, and a group keeps one job).
#   fair-share: 16 -> 2; 3 tenants x 100 jobs -> 12 each.  priority: 8 -> 1; 32 low -> 4, 8 high -> 1.
#   steady: 16 -> 2; 1200 jobs at 4/s -> 150 over 37.5 s.  mixed: 16 -> 2; 256 small -> 32, 24 large -> 3.
#   trace: 8 -> 1; its 16 rows -> 2 (the 5th, interactive at priority 100, and the 13th, batch at 0).
EXPECTED = {
    "gang": (2, 4, {"gang"}),
    "fair-share": (2, 36, {"fair_share"}),
    "priority": (1, 5, {"priority"}),
    "steady": (2, 150, {"steady"}),
    "mixed": (2, 35, set()),
    "trace": (1, 2, {"fair_share", "priority"}),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_shipped_scenario_runs_at_an_eighth_of_its_size(tmp_path, bench_vars, name):
    schedulers = SCHEDULERS.get(name, DEFAULT)
    extravars = dict(bench_vars, bench_schedulers=schedulers, bench_scenario=name, bench_scenario_scale=SCALE,
                     bench_timeout=180, **mirror_vars())
    runner = run_playbook(tmp_path, "bench.yml", extravars, label=name)
    assert runner.rc == 0, failure_text(runner)
    for scheduler in schedulers:
        check_scenario_run(bench_vars, name, scheduler)

    with open(os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"], "report.md"),
              encoding="utf-8") as handle:
        report = handle.read()
    assert "## Scenario %s" % name in report


def check_scenario_run(bench_vars, name, scheduler):
    nodes, jobs, sections = EXPECTED[name]
    out, summary, env = scheduler_results(bench_vars, scheduler)
    # A second opinion on every figure from the fetched files alone, by docs/metrics.md's definitions.
    assert recompute.differences(out, summary) == [], (name, scheduler)
    assert summary["complete"] is True, (scheduler, summary.get("reason"), summary.get("findings"))
    assert (summary["scenario"], summary["scenario_scale"], env["knobs"]["scenario_scale"]) == (name, SCALE, SCALE)
    assert summary["workload"]["nodes"] == env["workload"]["nodes"] == nodes
    assert summary["timing_source"] == "audit"
    metrics = summary["scenario_metrics"]
    preempted = (metrics.get("priority") or {}).get("pods_preempted", 0)
    assert metrics["breakdown"]["jobs"] == metrics["breakdown"]["jobs_all_bound"] == summary["jobs_submitted"] == jobs
    assert metrics["breakdown"]["jobs_not_all_bound"] == []
    assert sections <= set(metrics), (scheduler, sorted(metrics))
    rows = read_rows(out, "jobs.csv")
    assert len(rows) == jobs and all(row["all_bound"] for row in rows)
    if scheduler != "kueue":
        # Kueue evicts a whole workload to admit a higher one: pods deleted before they were bound are replaced too.
        assert summary["pods_bound"] == summary["pods_created"] == sum(int(row["pods"]) for row in rows) + preempted
    assert 0 < metrics["utilization"]["peak_cpu_share"] <= 1
    if "gang" in sections and scheduler == "coscheduling":
        # A gang scheduler places each gang whole.
        assert metrics["gang"]["full_gangs"] == metrics["gang"]["gang_jobs"] == jobs
    if "steady" in sections:
        window = metrics["steady"]["window"]
        # The 30 s warm-up at 1/8 is 3.75 s.
        assert window["from_s"] == pytest.approx(3.75) and window["to_s"] > window["from_s"]
        assert metrics["steady"]["offered_pods_per_s"] > 0
    print("%s at 1/8 on %s: makespan %.2f s, peak CPU share %.3f, %d pods preempted, findings %s" % (
        name, scheduler, summary["makespan_s"], metrics["utilization"]["peak_cpu_share"], preempted,
        summary["findings"]))


def test_the_burst_as_a_held_backlog_is_recomputed_from_its_files(tmp_path, bench_vars):
    """The seed's burst, held until the whole workload exists, on the default scheduler (every pod there at the
    release) and Kueue (one Workload per job: pods only once admitted): the held creations keep their true times."""
    extravars = dict(bench_vars, bench_schedulers=DEFAULT, bench_nodes=4, bench_jobs=12, bench_pods_per_job=2,
                     bench_arrival="backlog", bench_timeout=120, **mirror_vars())
    runner = run_playbook(tmp_path, "bench.yml", extravars, label="burst")
    assert runner.rc == 0, failure_text(runner)
    for scheduler in DEFAULT:
        out, summary, _ = scheduler_results(bench_vars, scheduler)
        assert summary["complete"] is True and summary["scenario"] == "burst", (scheduler, summary.get("reason"))
        assert recompute.differences(out, summary) == [], scheduler
        backlog, pods = summary["backlog"], read_rows(out, "pods.csv")
        held = [row["held_created"] for row in pods if row["held_created"]]
        held += [row["held_created"] for row in read_rows(out, "jobs.csv") if row["held_created"]]
        assert (backlog["pods_held"], backlog["jobs_held"]) == ((24, 12) if scheduler == "default" else (0, 12)), backlog
        assert backlog["created_from"] == min(held) and backlog["created_until"] == max(held) < backlog["release"]
        assert all(row["created"] >= backlog["release"] for row in pods)


# One node of 4 CPU and two jobs that each need all of it for 10 minutes, long after the run's 10 s wait (the
# cluster is torn down before that): whichever the scheduler starts first (a new node is tainted not-ready for a
# moment, so the first job's pods may be put back while the second's arrive), at least one job waits.
BLOCKED = """\
description: jobs that wait for room longer than the run waits
cluster: {nodes: 1, node_cpu: "4", node_memory: 16Gi, node_pods: 20}
phases:
  - name: fill
    groups:
      - {name: first, jobs: 1, pods_per_job: 4, pod_cpu: "1", pod_memory: 1Gi, pod_duration: 600,
         arrival: {kind: at_once}}
  - name: late
    start_s: 1
    groups:
      - {name: second, jobs: 1, pods_per_job: 4, pod_cpu: "1", pod_memory: 1Gi, pod_duration: 600,
         arrival: {kind: at_once}}
"""


def test_a_wait_that_runs_out_is_a_finding_and_the_run_goes_on(tmp_path, bench_vars):
    scenario = tmp_path / "blocked.yml"
    scenario.write_text(BLOCKED)
    extravars = dict(bench_vars, bench_scenario=str(scenario), bench_timeout=10)
    runner = run_playbook(tmp_path, "bench.yml", extravars, label="blocked")
    assert runner.rc == 0, failure_text(runner)

    out, summary, env = scheduler_results(bench_vars, "default")
    assert env["outcome"] == {"status": "ok"}
    jobs_csv = read_rows(out, "jobs.csv")
    assert summary["complete"] is False and summary["reason"].startswith("timed out after 10s"), (
        summary["reason"], summary["phases_s"], summary["workload"], jobs_csv)
    # The jobs the finding names are those jobs.csv shows without all their pods bound: one or both.
    waiting = sorted(row["job"] for row in jobs_csv if not row["all_bound"])
    assert len(jobs_csv) == 2 and waiting, jobs_csv
    assert summary["findings"][0] == (
        "%d of 2 jobs did not have all their pods bound when the wait ran out (timeout=10 s): %s"
        % (len(waiting), ", ".join(waiting)))
    with open(os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"], "report.md"),
              encoding="utf-8") as handle:
        report = handle.read()
    assert "did not have all their pods bound when the wait ran out" in report
