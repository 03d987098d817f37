#!/usr/bin/env python3
"""How fast the load generator creates a run's pods, with one process and with several (make bench-loadgen).

For each count of load generator processes (bench_submit_processes), runs bench.yml on inventories/local (the
binary runtime) with the seed's workload created pod by pod (bench_pod_creation=direct: one request per pod, the
mode in which the load generator, not the job controller, sets the pace) while the scheduler runs, each run with
its host calibration measured afresh with the same processes (bench_calibration_max_age=0). Then prints, side by
side, how fast the pods were submitted, the calibrated create ceiling, the submission's share of that ceiling,
the binding ceiling and what the scheduler made of it. Each run's results and report stay under results/.
"""
import argparse
import json
import os
import sys
import time

from bench_run import ROOT, bench

# How close to the create ceiling the load generator is to come while a scheduler runs (issue 31).
GOAL_SHARE = 0.8


def run_bench(run_id, processes, args):
    extra = {"bench_run_id": run_id, "bench_submit_processes": processes, "bench_pod_creation": "direct",
             "bench_calibration_max_age": 0, "bench_schedulers": [args.scheduler], "bench_nodes": args.nodes,
             "bench_jobs": args.jobs, "bench_pods_per_job": args.pods_per_job}
    started = time.monotonic()
    failures = []
    result = bench(extra, more_args=args.ansible_args,
                   on_event=lambda event: failures.append(event.line) if event.kind in ("failed", "unreachable") else None)
    if result.rc != 0:
        sys.exit("bench.yml with bench_submit_processes=%d failed:\n%s" % (processes, "\n".join(failures)[-4000:]))
    return time.monotonic() - started


def read_result(run_id, scheduler):
    directory = os.path.join(ROOT, "results", run_id, "localhost", scheduler)
    with open(os.path.join(directory, "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    with open(os.path.join(directory, "env.json"), encoding="utf-8") as handle:
        env = json.load(handle)
    return summary, env["calibration"]


def row(processes, summary, calibration):
    """The figures of one run: requests per second, as every pod is one create request here."""
    submitted = summary["submit_rate_jobs_per_s"] * summary["workload"]["pods_per_job"]
    ceiling = calibration["api_create"]["ceiling_pods_per_s"]
    binding = calibration["api_binding"]["ceiling_pods_per_s"]
    return {"processes": processes, "submitted_pods_per_s": round(submitted, 1), "create_ceiling_pods_per_s": ceiling,
            "share_of_create_ceiling": round(submitted / ceiling, 3) if ceiling else None,
            "binding_ceiling_pods_per_s": binding, "bound_pods_per_s": summary["throughput_pods_per_s"],
            "limited_by": summary["throughput_limited_by"]["stage"],
            "load_test_cpu_s": (summary.get("loadtest_cost") or {}).get("cpu_seconds"),
            "other_cpu_percent": (summary.get("host_load") or {}).get("other_cpu_percent")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", default="1,2", help="comma-separated counts of processes, in the order run "
                        "(default 1,2; a count may repeat)")
    parser.add_argument("--scheduler", default="default")
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--pods-per-job", type=int, default=3)
    parser.add_argument("ansible_args", nargs="*", help="more ansible-playbook arguments (after --)")
    args = parser.parse_args()
    counts = [int(value) for value in args.processes.split(",") if value.strip()]
    if not counts or min(counts) < 1:
        sys.exit("--processes=%s is not allowed: use counts of at least 1, such as 1,2" % args.processes)

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    rows = []
    for number, processes in enumerate(counts, 1):
        run_id = "loadgen-%s-%d-p%d" % (stamp, number, processes)
        print("bench.yml with bench_submit_processes=%d (run %s) ..." % (processes, run_id), flush=True)
        seconds = run_bench(run_id, processes, args)
        rows.append(dict(row(processes, *read_result(run_id, args.scheduler)), run_id=run_id, run_s=round(seconds)))

    print()
    print("%9s %13s %13s %9s %13s %10s %-12s %9s %8s" % (
        "processes", "submitted/s", "create ceil.", "share", "binding ceil.", "bound/s", "limited by", "client s",
        "other %"))
    for r in rows:
        print("%9d %13.1f %13.1f %9.3f %13.1f %10.1f %-12s %9s %8s" % (
            r["processes"], r["submitted_pods_per_s"], r["create_ceiling_pods_per_s"], r["share_of_create_ceiling"],
            r["binding_ceiling_pods_per_s"], r["bound_pods_per_s"], r["limited_by"], r["load_test_cpu_s"],
            r["other_cpu_percent"]))
    print("(pods/s; each pod is one create request (bench_pod_creation=direct); both ceilings measured by each run's "
          "calibration with its processes; the goal is a share of at least %g while the scheduler runs)" % GOAL_SHARE)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
