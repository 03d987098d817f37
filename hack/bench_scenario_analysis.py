#!/usr/bin/env python3
"""How long does a scenario's analysis take? (issue 13's speed figure; prints, asserts nothing)

Builds the records of a made-up run, the size of the seed (3,000 pods) and ten times it (30,000 pods): three tenants
of weights 1:1:2, a quarter of the jobs gangs, two priorities, 2 % of the pods preempted and replaced, pods bound
10 ms to 60 s after their creation. Then times what the load test does with a scenario's records once the audit log
is read: the scenario's metrics and findings (sched_scenario_metrics, sched_scenario_findings through
sched_scenario_records.scenario_summary) and the rows of jobs.csv and pods.csv. Reading the audit log itself is
measured by `make bench-scale` (docs/measurements.md: 6.7 s for 30,000 pods).
"""
import argparse
import os
import random
import time

from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.records import (
    job_rows,
    scenario_pod_rows,
    scenario_summary,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

S = 1_000_000
START = 1_790_000_000 * S


def made_up_run(pods_wanted, seed=1):
    """(scenario, jobs, pods, records) of a made-up run of about ``pods_wanted`` pods."""
    rng = random.Random(seed)
    tenants = {"team-a": 1, "team-b": 1, "team-c": 2}
    scenario = {"name": "made-up", "cluster": {"nodes": 1000, "node_cpu": "32", "node_memory": "256Gi",
                                               "node_pods": 110},
                "tenants": tenants, "warmup_s": 30,
                "thresholds": {"fairness_error": 0.1, "stuck_partial_s": 60, "high_priority_wait_s": 30}}
    jobs, pods, records = [], [], []
    index = 0
    while len(pods) < pods_wanted:
        gang = index % 4 == 0
        size = 8 if gang else 3
        arrival = index * 0.01
        job = {"index": index, "name": "job-%06d" % index, "group": "g", "tenant": list(tenants)[index % 3],
               "priority": 1000 if index % 10 == 0 else 0, "gang": gang, "pods_per_job": size,
               "pod_millicores": 1000, "pod_memory_bytes": 2 ** 30, "pod_duration": 30.0, "arrival_s": arrival,
               "created_us": START + int(arrival * S), "admitted_us": None}
        jobs.append(job)
        for number in range(size):
            created = job["created_us"] + rng.randint(1_000, 500_000)
            bound = created + rng.randint(10_000, 60 * S)
            ended = bound + rng.randint(S, 20 * S) if rng.random() < 0.02 else None
            name = "%s-%d" % (job["name"], number)
            pods.append({"job": job["name"], "pod": name, "node": "kwok-node-%d" % rng.randrange(1000),
                         "created_us": created, "bound_us": bound, "ended_us": ended})
            records.append(dict(pods[-1]))
        index += 1
    return scenario, jobs, pods, records


def measure(pods_wanted):
    scenario, jobs, pods, records = made_up_run(pods_wanted)
    began = time.perf_counter()
    summary = scenario_summary(scenario, jobs, pods, [])
    metrics_s = time.perf_counter() - began
    began = time.perf_counter()
    job_rows(jobs, pods)
    scenario_pod_rows(records, jobs)
    rows_s = time.perf_counter() - began
    print("%6d pods, %5d jobs: scenario metrics and findings %.2f s, jobs.csv and pods.csv rows %.2f s "
          "(fairness error %s, %d findings)" % (len(pods), len(jobs), metrics_s, rows_s,
                                               summary["scenario_metrics"]["fair_share"]["fairness_error"],
                                               len(summary["findings"])))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pods", type=int, nargs="+", default=[3000, 30000])
    for size in parser.parse_args().pods:
        measure(size)


if __name__ == "__main__":
    main()
