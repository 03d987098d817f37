#!/usr/bin/env python3
"""What the measuring costs: the seed's workload under each audit policy, side by side (make bench-observer).

For each audit policy (bench_audit_policy: full, light, off), runs bench.yml on inventories/local (the binary
runtime) with the seed's workload as a held backlog (bench_arrival=backlog: every job created first, then released
at once) for each scheduler of the local inventory, then prints one row per policy and scheduler: the pace from the
release, the audit log's bytes per pod, the API server's CPU per request (its own request counter, so the same
measure with no audit log), the CPU per pod of kwok and of the load generator, the harness's share of the host's CPU
(kwok and the load generator, component_cost.harness_percent) and how busy the host was. Under `off` the pods are
timed from the load test's watch (timing_source), labelled so. The load average before and after is printed, so that
figures taken on a busy machine can be told apart. Each run's results and report stay under results/.
"""
import argparse
import glob
import json
import os
import sys
import time

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.why import cost_of
from bench_run import ROOT, bench

POLICIES = ("full", "light", "off")


def run_bench(run_id, policy, args):
    extra = {"bench_run_id": run_id, "bench_audit_policy": policy, "bench_arrival": "backlog",
             "bench_nodes": args.nodes, "bench_jobs": args.jobs, "bench_pods_per_job": args.pods_per_job,
             "bench_calibrate": False}
    if args.schedulers:
        extra["bench_schedulers"] = args.schedulers
    failures = []
    result = bench(extra, more_args=args.ansible_args,
                   on_event=lambda event: failures.append(event.line) if event.kind in ("failed", "unreachable") else None)
    if result.rc != 0:
        sys.exit("bench.yml with bench_audit_policy=%s failed:\n%s" % (policy, "\n".join(failures)[-4000:]))


def read_summaries(run_id):
    """Each scheduler's summary.json of the run, in the order the schedulers ran."""
    found = []
    for path in glob.glob(os.path.join(ROOT, "results", run_id, "localhost", "*", "summary.json")):
        with open(path, encoding="utf-8") as handle:
            found.append(json.load(handle))
    return sorted(found, key=lambda summary: summary["started_at"])


def row(policy, summary):
    """One policy and scheduler's figures from its summary.json (docs/metrics.md defines each source)."""
    cost = summary.get("component_cost") or {}
    apiserver = cost_of(summary, "kube-apiserver") or {}
    counted = (((summary.get("internals") or {}).get("processes") or {}).get("kube-apiserver") or {}).get(
        "requests_by_verb") or {}
    requests = sum(counted.values())
    bound = summary["pods_bound"]
    audit = summary.get("audit_log_bytes")
    return {
        "policy": policy, "scheduler": summary["scheduler"], "pods_bound": bound,
        "pods_per_s": summary["throughput_pods_per_s"], "makespan_s": summary["makespan_s"],
        "timing_source": summary["timing_source"],
        "audit_kb_per_pod": round(audit / bound / 1000.0, 2) if audit and bound else None,
        "apiserver_requests_per_pod": round(requests / bound, 2) if bound and requests else None,
        "apiserver_cpu_ms_per_request": (round(apiserver["cpu_seconds"] * 1000.0 / requests, 3)
                                         if requests and apiserver.get("cpu_seconds") is not None else None),
        "apiserver_cpu_ms_per_pod": apiserver.get("cpu_ms_per_pod"),
        "kwok_cpu_ms_per_pod": (cost_of(summary, "kwok") or {}).get("cpu_ms_per_pod"),
        "loadgen_cpu_ms_per_pod": (cost_of(summary, "load generator") or {}).get("cpu_ms_per_pod"),
        "harness_percent": cost.get("harness_percent"), "host_busy_percent": cost.get("host_busy_percent"),
    }


COLUMNS = (("policy", "%-6s"), ("scheduler", "%-9s"), ("pods_per_s", "%8s"), ("makespan_s", "%9s"),
           ("timing_source", "%-6s"), ("audit_kb_per_pod", "%8s"), ("apiserver_requests_per_pod", "%8s"),
           ("apiserver_cpu_ms_per_request", "%8s"), ("apiserver_cpu_ms_per_pod", "%8s"),
           ("kwok_cpu_ms_per_pod", "%8s"), ("loadgen_cpu_ms_per_pod", "%8s"), ("harness_percent", "%8s"),
           ("host_busy_percent", "%8s"))
HEADERS = ("policy", "scheduler", "pods/s", "makespan", "timing", "audit KB", "req/pod", "api ms/r", "api ms/p",
           "kwok ms", "gen ms", "harness%", "busy %")


def table(rows):
    lines = [" ".join(fmt % header for (_, fmt), header in zip(COLUMNS, HEADERS))]
    for values in rows:
        lines.append(" ".join(fmt % ("-" if values[key] is None else values[key]) for key, fmt in COLUMNS))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", default=",".join(POLICIES), help="comma-separated audit policies, in the order "
                        "run (default full,light,off; one may repeat)")
    parser.add_argument("--schedulers", default="", help="comma-separated (default: the local inventory's)")
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--pods-per-job", type=int, default=3)
    parser.add_argument("ansible_args", nargs="*", help="more ansible-playbook arguments (after --)")
    args = parser.parse_args()
    policies = [value.strip() for value in args.policies.split(",") if value.strip()]
    if not policies or set(policies) - set(POLICIES):
        sys.exit("--policies=%s is not allowed: use %s, comma-separated" % (args.policies, ", ".join(POLICIES)))
    args.schedulers = [value.strip() for value in args.schedulers.split(",") if value.strip()]

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    print("load average before: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
    rows = []
    for number, policy in enumerate(policies, 1):
        run_id = "observer-%s-%d-%s" % (stamp, number, policy)
        print("bench.yml with bench_audit_policy=%s (run %s) ..." % (policy, run_id), flush=True)
        run_bench(run_id, policy, args)
        rows += [dict(row(policy, summary), run_id=run_id) for summary in read_summaries(run_id)]
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())
    print()
    print(table(rows))
    print("(pods/s and makespan from the release; audit KB per pod: the log's uncompressed bytes; req/pod and api ms/r: "
          "kube-apiserver's own request counter over the window, its CPU per request; ms/p: CPU ms per bound pod; "
          "harness%%: kwok and the load generator's share of the host's CPU; timing 'watch': no audit log)")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
