"""Scenario files (scenarios/*.yml): loading, the one-line problems of bad input, and the expansion into jobs."""
import os

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as s

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIPPED = ("ai-training", "burst", "fair-share", "gang", "mixed", "priority", "steady", "trace")

GOOD = """\
description: two tenants, a gang group and a trace
cluster: {nodes: 2, node_cpu: "4", node_memory: 8Gi, node_pods: 10}
tenants:
  - {name: a, weight: 1}
  - {name: b, weight: 2}
thresholds:
  fairness_error: 0.1
phases:
  - name: first
    groups:
      - name: gangs
        tenant: a
        jobs: 3
        pods_per_job: 2
        pod_cpu: 500m
        pod_memory: 1Gi
        pod_duration: 10
        gang: true
        arrival: {kind: rate, jobs_per_s: 2}
  - name: second
    start_s: 5
    groups:
      - name: replay
        arrival: {kind: trace, file: jobs.csv}
"""
TRACE = """\
arrival_s,pods_per_job,pod_cpu,pod_memory,pod_duration,tenant,priority
1.5,1,1,1Gi,5,b,0
0,2,250m,512Mi,3,a,100
"""


def write(tmp_path, text=GOOD, trace=TRACE):
    (tmp_path / "jobs.csv").write_text(trace)
    path = tmp_path / "s.yml"
    path.write_text(text)
    return str(path)


def total_jobs(scenario):
    return sum(len(group.get("trace") or ()) or group["jobs"] for phase in scenario["phases"] for group in phase["groups"])


@pytest.mark.parametrize("name", [name for name in SHIPPED if name != s.BURST])
def test_every_shipped_scenario_loads_and_expands_the_same_every_time(name):
    scenario, problems = s.load(name)
    assert problems == []
    jobs = s.expand(scenario)
    assert len(jobs) == total_jobs(scenario) > 0
    assert jobs == s.expand(scenario)
    assert [job["index"] for job in jobs] == list(range(len(jobs)))
    assert len({job["name"] for job in jobs}) == len(jobs)
    assert [job["arrival_s"] for job in jobs] == sorted(job["arrival_s"] for job in jobs)
    assert scenario["description"].strip()


def test_the_shipped_names_are_the_files_and_burst():
    assert tuple(s.shipped_names()) == SHIPPED
    assert not os.path.exists(os.path.join(s.SCENARIO_DIR, s.BURST + ".yml"))


def test_burst_is_the_bench_knobs_workload_not_a_file():
    # Its values are the bench_* defaults, in one place: a file would be a second copy of them.
    assert s.problems_of(s.BURST) == []
    assert s.load(s.BURST) == (None, ["scenario='burst' has no file: it is the workload of the bench_* knobs"])


def test_the_knob_names_itself_in_every_problem(tmp_path):
    assert s.problems_of("gang") == [] and s.problems_of("fair-share") == []
    assert s.problems_of("bursty") == ["bench_scenario='bursty' is not allowed: use one of ai-training, burst, fair-share, gang, "
                                       "mixed, priority, steady, trace, or the path of a scenario file"]
    assert s.problems_of("") == ["bench_scenario='' is not allowed: use one of ai-training, burst, fair-share, gang, mixed, "
                                 "priority, steady, trace, or the path of a scenario file"]
    path = tmp_path / "bad.yml"
    path.write_text("description: x\ncluster: {nodes: 0, node_cpu: '1', node_memory: 1Gi, node_pods: 1}\n"
                    "phases: [{name: p, groups: [{name: g, jobs: 1, pods_per_job: 1, pod_cpu: '1', pod_memory: 1Gi, "
                    "pod_duration: 1, arrival: {kind: at_once}}]}]\n")
    assert s.problems_of(str(path)) == ["bench_scenario=%s: %s line 2: cluster.nodes=0 is not allowed: use a whole "
                                        "number of at least 1" % (path, path)]


def cpu_demand(jobs):
    return sum(job["pods_per_job"] * job["pod_millicores"] for job in jobs)


def cluster_cpu(scenario):
    return scenario["cluster"]["nodes"] * s.millicores(scenario["cluster"]["node_cpu"])


def test_the_scenarios_have_the_sizes_the_issue_asks_for():
    gang, _ = s.load("gang")
    jobs = s.expand(gang)
    assert all(job["gang"] and 8 <= job["pods_per_job"] <= 16 for job in jobs)
    assert cpu_demand(jobs) == 2 * cluster_cpu(gang)
    # Jobs that arrive together alternate between the groups: 8, 12, 16 pods, then again.
    assert [job["pods_per_job"] for job in jobs[:4]] == [8, 12, 16, 8]

    fair, _ = s.load("fair-share")
    assert sorted(fair["tenants"].values()) == [1.0, 1.0, 2.0]
    jobs = s.expand(fair)
    for tenant in fair["tenants"]:
        assert cpu_demand([job for job in jobs if job["tenant"] == tenant]) > cluster_cpu(fair)

    priority, _ = s.load("priority")
    jobs = s.expand(priority)
    low = [job for job in jobs if job["priority"] == 0]
    high = [job for job in jobs if job["priority"] > 0]
    assert cpu_demand(low) == cluster_cpu(priority) and high
    assert min(job["arrival_s"] for job in high) > 0
    assert min(job["pod_duration"] for job in low) > max(job["arrival_s"] for job in high)

    steady, _ = s.load("steady")
    (group,) = steady["phases"][0]["groups"]
    rate = group["arrival"]["jobs_per_s"]
    held = rate * group["pods_per_job"] * s.millicores(group["pod_cpu"]) * group["pod_duration"]
    assert held < cluster_cpu(steady)
    assert steady["warmup_s"] >= group["pod_duration"]
    assert group["jobs"] / rate >= 5 * steady["warmup_s"]

    mixed, _ = s.load("mixed")
    sizes = {job["pod_millicores"] for job in s.expand(mixed)}
    assert len(sizes) == 2 and max(sizes) >= 8 * min(sizes)


def test_a_file_by_path_with_a_trace_beside_it(tmp_path):
    scenario, problems = s.load(write(tmp_path))
    assert problems == [] and scenario["name"] == "s"
    jobs = s.expand(scenario)
    # The rate group: 2 jobs/s from 0 s; the trace rows at 5 s (second phase) + their own offsets, sorted.
    assert [(job["name"], job["arrival_s"]) for job in jobs] == [
        ("gangs-00000", 0.0), ("gangs-00001", 0.5), ("gangs-00002", 1.0), ("replay-00001", 5.0), ("replay-00000", 6.5)]
    assert jobs[3] == {"index": 3, "name": "replay-00001", "group": "replay", "tenant": "a", "priority": 100,
                       "gang": False, "pods_per_job": 2, "pod_millicores": 250, "pod_memory_bytes": 512 * 2 ** 20,
                       "pod_duration": 3.0, "arrival_s": 5.0}
    assert jobs[0]["gang"] and jobs[0]["pod_millicores"] == 500 and jobs[0]["pod_memory_bytes"] == 2 ** 30


def poisson(seed, rate=4.0, jobs=400):
    text = GOOD.replace("{kind: rate, jobs_per_s: 2}", "{kind: poisson, jobs_per_s: %g, seed: %d}" % (rate, seed))
    return text.replace("jobs: 3", "jobs: %d" % jobs)


def test_poisson_arrivals_are_reproduced_from_their_seed(tmp_path):
    offsets = {}
    for seed in (7, 8):
        scenario, problems = s.load(write(tmp_path, poisson(seed)))
        assert problems == []
        offsets[seed] = [job["arrival_s"] for job in s.expand(scenario) if job["group"] == "gangs"]
        again, _ = s.load(write(tmp_path, poisson(seed)))
        assert [job["arrival_s"] for job in s.expand(again) if job["group"] == "gangs"] == offsets[seed]
    assert offsets[7] != offsets[8]
    # 400 arrivals at 4/s: the last near 100 s (the mean gap, 1/4 s, within 10 % for this seed).
    gaps = [b - a for a, b in zip([0.0] + offsets[7], offsets[7])]
    assert 0.225 <= sum(gaps) / len(gaps) <= 0.275


def problems_of(tmp_path, old, new, trace=TRACE):
    assert old in GOOD + TRACE, old
    text = GOOD.replace(old, new) if old in GOOD else GOOD
    scenario, problems = s.load(write(tmp_path, text, TRACE.replace(old, new) if old in TRACE else trace))
    assert scenario is None
    return problems


@pytest.mark.parametrize("old,new,expected", [
    ("nodes: 2", "nodes: 0", "line 2: cluster.nodes=0 is not allowed: use a whole number of at least 1"),
    ("weight: 2", "weight: 0", "line 5: tenants[1].weight=0 is not allowed: use a number greater than 0"),
    ("weight: 2", "weight: -1", "line 5: tenants[1].weight=-1 is not allowed: use a number greater than 0"),
    ("jobs: 3", "jobs: 0", "line 13: phases[0].groups[0].jobs=0 is not allowed: use a whole number of at least 1"),
    ("pods_per_job: 2", "pods_per_job: 0",
     "line 14: phases[0].groups[0].pods_per_job=0 is not allowed: use a whole number of at least 1"),
    ("jobs_per_s: 2", "jobs_per_s: 0",
     "line 19: phases[0].groups[0].arrival.jobs_per_s=0 is not allowed: use a number greater than 0"),
    ("pod_cpu: 500m", "pod_cpu: lots", "line 15: phases[0].groups[0].pod_cpu='lots' is not allowed: use a Kubernetes quantity"),
    ("tenant: a", "tenant: c", "line 12: phases[0].groups[0].tenant='c' is not allowed: use a tenant of the scenario (a, b)"),
    ("pod_cpu: 500m", "pod_cpu: 5",
     "line 11: phases[0].groups[0]: pod_cpu=5/pod_memory=1Gi is not allowed: a pod must fit a fake node "
     "(node_cpu=4, node_memory=8Gi)"),
    ("pods_per_job: 2", "pods_per_job: 17",
     "line 11: phases[0].groups[0]: a gang of 17 pods is not allowed: the cluster holds only 16 such pods at once"),
    ("kind: rate, jobs_per_s: 2", "kind: fast", "line 19: phases[0].groups[0].arrival.kind='fast' is not allowed: use one of"),
    ("kind: rate, jobs_per_s: 2", "kind: at_once, seed: 2",
     "line 19: phases[0].groups[0].arrival.seed is not a field of arrival kind at_once"),
    ("gang: true", "gangs: true", "line 18: phases[0].groups[0].gangs is not a field here: use name, jobs"),
    ("fairness_error: 0.1", "fairness_error: 1.5", "line 7: thresholds.fairness_error=1.5 is not allowed: use a number from 0 to 1"),
    ("fairness_error: 0.1", "latency_p99_ms: 10", "line 7: thresholds.latency_p99_ms is not allowed: the scenario has no warmup_s"),
    ("name: replay", "name: gangs", "line 23: two job groups are named 'gangs': give each its own name"),
    ("file: jobs.csv", "file: gone.csv", "line 24: phases[1].groups[0].arrival.file is not allowed: there is no such file as "),
])
def test_each_bad_value_is_one_line_naming_file_line_field_and_what_is_allowed(tmp_path, old, new, expected):
    problems = problems_of(tmp_path, old, new)
    assert len(problems) == 1, problems
    assert problems[0].startswith(str(tmp_path / "s.yml") + " " + expected), problems[0]


def test_two_tenants_of_one_name(tmp_path):
    problems = problems_of(tmp_path, "  - {name: b, weight: 2}", "  - {name: a, weight: 2}")
    # Then the scenario has one tenant, so no fairness to promise, and the trace's tenant b is unknown.
    assert problems == [str(tmp_path / "s.yml") + " line 5: tenants[1].name='a' is not allowed: another tenant has that name",
                        str(tmp_path / "s.yml") + " line 7: thresholds.fairness_error is not allowed: the scenario has one tenant",
                        str(tmp_path / "jobs.csv") + " line 2: row 1, column tenant='b' is not allowed: use a tenant of the "
                        "scenario (a)"]


def test_a_threshold_needs_what_it_measures(tmp_path):
    # The trace's rows have priorities 0 and 100: a priority promise can be checked.
    text = GOOD.replace("fairness_error: 0.1", "high_priority_wait_s: 5")
    assert s.load(write(tmp_path, text))[1] == []
    # Without the trace every job has priority 0.
    scenario, problems = s.load(write(tmp_path, text.split("  - name: second")[0]))
    assert problems == [str(tmp_path / "s.yml") + " line 7: thresholds.high_priority_wait_s is not allowed: "
                        "every job has the same priority"]


@pytest.mark.parametrize("old,new,expected", [
    ("1.5,1,1,1Gi,5,b,0", "1.5,1,1,1Gi,-5,b,0",
     "line 2: row 1, column pod_duration='-5' is not allowed: use seconds, 0 or more"),
    ("0,2,250m,512Mi,3,a,100", "0,0,250m,512Mi,3,a,100",
     "line 3: row 2, column pods_per_job='0' is not allowed: use a whole number of at least 1"),
    ("0,2,250m,512Mi,3,a,100", "0,2,250m,512Mi,3,z,100",
     "line 3: row 2, column tenant='z' is not allowed: use a tenant of the scenario (a, b)"),
    ("0,2,250m,512Mi,3,a,100", "0,2,250m,512Mi,3,a", "line 3: row 2 has 6 values, the header names 7 columns"),
    ("pod_duration,tenant", "duration,tenant", "line 1: the header must name the columns arrival_s, pods_per_job"),
])
def test_a_bad_trace_row_names_its_row_and_column(tmp_path, old, new, expected):
    problems = problems_of(tmp_path, old, new)
    assert len(problems) == 1, problems
    assert problems[0].startswith(str(tmp_path / "jobs.csv") + " " + expected), problems[0]


def test_an_unknown_name_lists_the_names():
    scenario, problems = s.load("bursty")
    assert scenario is None
    assert problems == ["scenario='bursty' is not allowed: use one of ai-training, burst, fair-share, gang, mixed, priority, steady, "
                        "trace, or the path of a scenario file"]
    assert s.load("/nowhere/x.yml")[1] == ["scenario='/nowhere/x.yml' is not allowed: there is no such file"]


@pytest.mark.parametrize("text,expected", [
    (GOOD.replace("nodes: 2,", "nodes: [2,"), "line 2 column "),
    (GOOD.replace("  fairness_error: 0.1", "  fairness_error: 0.1\n  fairness_error: 0.2"),
     "line 8 column 3: does not parse as YAML: 'fairness_error' appears twice"),
    ("description: [unclosed\n", "line 2 column 1: does not parse as YAML: "),
])
def test_a_file_that_does_not_parse_names_its_line(tmp_path, text, expected):
    scenario, problems = s.load(write(tmp_path, text))
    assert scenario is None and len(problems) == 1
    assert problems[0].startswith(str(tmp_path / "s.yml") + " " + expected), problems[0]


def test_a_scenario_that_is_not_a_mapping(tmp_path):
    assert s.load(write(tmp_path, "- just\n- a list\n"))[1] == [
        str(tmp_path / "s.yml") + " line 1: a scenario is a mapping of description, cluster, tenants, warmup_s, thresholds, phases"]


def test_missing_fields_name_the_mapping_and_its_line(tmp_path):
    problems = problems_of(tmp_path, "        pod_memory: 1Gi\n", "")
    assert problems == [str(tmp_path / "s.yml") + " line 11: phases[0].groups[0] lacks pod_memory"]


def test_a_scale_multiplies_nodes_jobs_and_the_clock_and_keeps_the_rates():
    steady, _ = s.load("steady")
    small, problems = s.scaled(steady, 0.1)
    assert problems == [] and small["scale"] == 0.1 and steady.get("scale") is None
    # 16 nodes -> 1.6 -> 2; 1200 jobs at 4/s over 300 s -> 120 jobs at 4/s over 30 s; 20 s pods -> 2 s; warm-up 3 s.
    assert small["cluster"] == dict(steady["cluster"], nodes=2)
    group = small["phases"][0]["groups"][0]
    assert (group["jobs"], group["arrival"], group["pod_duration"], small["warmup_s"]) == (
        120, {"kind": "rate", "jobs_per_s": 4.0}, 2.0, 3.0)
    assert s.expand(small)[-1]["arrival_s"] == 119 / 4.0
    # A latency promise is the scheduler's own: not on the scenario's clock.
    assert small["thresholds"] == steady["thresholds"]

    priority, _ = s.load("priority")
    small, _ = s.scaled(priority, 0.125)
    # 8 nodes -> 1; 32 low jobs -> 4, 8 high -> 1; the high ones arrive at 30 s * 0.125; their wait promise 10 s -> 1.25.
    assert small["cluster"]["nodes"] == 1
    assert [(g["name"], g["jobs"], g["pod_duration"]) for p in small["phases"] for g in p["groups"]] == [
        ("low", 4, 15.0), ("high", 1, 3.75)]
    assert small["phases"][1]["start_s"] == 3.75 and small["thresholds"] == {"high_priority_wait_s": 1.25}
    assert s.scaled(priority, 1)[0] == dict(priority, scale=1)


def test_a_scale_thins_a_trace_evenly_and_scales_its_offsets():
    trace, _ = s.load("trace")
    rows = trace["phases"][0]["groups"][0]["trace"]
    small, problems = s.scaled(trace, 0.25)
    # 16 rows -> 4: the middle rows of each stretch of 4 (2, 6, 10 and 14), their offsets and durations a quarter.
    assert problems == [] and small["cluster"]["nodes"] == 2
    assert small["phases"][0]["groups"][0]["trace"] == [
        dict(rows[i], arrival_s=rows[i]["arrival_s"] / 4, pod_duration=rows[i]["pod_duration"] / 4) for i in (2, 6, 10, 14)]
    # Twice the size repeats each row.
    assert [row["arrival_s"] for row in s.scaled(trace, 2)[0]["phases"][0]["groups"][0]["trace"][:4]] == [
        2 * rows[0]["arrival_s"], 2 * rows[0]["arrival_s"], 2 * rows[1]["arrival_s"], 2 * rows[1]["arrival_s"]]


def test_a_scale_that_leaves_too_few_nodes_for_a_gang_is_named():
    gang, _ = s.load("gang")
    # 16 nodes of 16 CPU -> 1 node: 8 pods of 2 CPU at once; the 12- and 16-pod gangs need more.
    assert s.scaled(gang, 0.05)[1] == [
        "bench_scenario_scale=0.05 is not allowed with scenario gang: it leaves 1 fake nodes, which hold 8 pods of "
        "group gang-12 at once, and its gangs need 12",
        "bench_scenario_scale=0.05 is not allowed with scenario gang: it leaves 1 fake nodes, which hold 8 pods of "
        "group gang-16 at once, and its gangs need 16"]
    assert s.scaled(gang, 0.125)[1] == []
    assert s.problems_of("gang", scale=0.05)[0].startswith("bench_scenario_scale=0.05 is not allowed")
    assert s.problems_of("burst", scale=0.5) == [
        "bench_scenario_scale=0.5 is not allowed with bench_scenario=burst: the burst's size is that of the bench_* "
        "knobs (bench_nodes, bench_jobs, ...)"]
