"""Writers of small run directories in the layout the benchmark produces, for the report tests."""
import json
import os

from ansible_collections.kube_sched_bench.core.plugins.module_utils.result.schema import SCHEMA_VERSION


def summary(scheduler="default", pods_bound=150, pods_expected=150, makespan_s=1.5, throughput=100.0, peak=80,
            latency=None, cost=None, complete=True, reason=None, timing_source="audit", capacity=None,
            share_of_host_ceiling=None):
    document = {
        "schema_version": SCHEMA_VERSION,
        "scheduler": scheduler,
        "pods_created": pods_expected,
        "pods_bound": pods_bound,
        "pods_expected": pods_expected,
        "makespan_s": makespan_s,
        "throughput_pods_per_s": throughput,
        "peak_throughput_pods_per_s": peak,
        "latency_ms": latency if latency is not None else {"p50": 10.0, "p90": 20.0, "p99": 30.0, "max": 40.0,
                                                           "mean": 15.0},
        "submit_rate_jobs_per_s": 400.0,
        "timing_source": timing_source,
        "complete": complete,
        "reason": reason,
    }
    if cost is not None:
        document["scheduler_cost"] = cost
    if capacity is not None:
        document.update(capacity)
    if share_of_host_ceiling is not None:
        document["share_of_host_ceiling"] = share_of_host_ceiling
    return document


def env(host, scheduler="default", kernel="6.1.0", distribution="Debian", scheduler_api_qps=1000, outcome=None,
        calibration=None):
    document = {
        "run_id": "run",
        "host": host,
        "scheduler": scheduler,
        "runtime": "binary",
        "system": {"kernel": kernel, "distribution": distribution, "distribution_version": "12", "cpus": 2,
                   "memory_mb": 4096, "cgroupns": True},
        "versions": {"set": "modern", "components": {"kube-scheduler": "Kubernetes v1.32.2"}},
        "workload": {"nodes": 20, "jobs": 50, "pods_per_job": 3},
        "knobs": {"scheduler_api_qps": scheduler_api_qps, "scheduler_gogc": ""},
        "outcome": outcome or {"status": "ok"},
    }
    if calibration is not None:
        document["calibration"] = calibration
    return document


def timeline_text(bound_totals):
    """timeline.csv whose bound_total column is the given list, one row per second; every pod is created at once."""
    lines = ["second,created,created_total,bound,bound_total,backlog"]
    previous = 0
    created = bound_totals[-1] if bound_totals else 0
    for second, total in enumerate(bound_totals):
        lines.append("%d,%d,%d,%d,%d,%d" % (second, created if second == 0 else 0, created, total - previous, total,
                                            created - total))
        previous = total
    return "\n".join(lines) + "\n"


def write_result(directory, summary_doc=None, bound_totals=(50, 120, 150), env_doc=None):
    """One scheduler's (or one repeat's) result files; None leaves a file out."""
    os.makedirs(directory, exist_ok=True)
    if summary_doc is not None:
        with open(os.path.join(directory, "summary.json"), "w", encoding="utf-8") as out:
            json.dump(summary_doc, out)
    if bound_totals is not None:
        with open(os.path.join(directory, "timeline.csv"), "w", encoding="utf-8") as out:
            out.write(timeline_text(bound_totals))
    if env_doc is not None:
        with open(os.path.join(directory, "env.json"), "w", encoding="utf-8") as out:
            json.dump(env_doc, out)
    return directory


def write_failed(host_dir, task, msg, schedulers=None):
    os.makedirs(host_dir, exist_ok=True)
    document = {"host": os.path.basename(host_dir), "task": task, "msg": msg, "schedulers": schedulers or {}}
    with open(os.path.join(host_dir, "failed.json"), "w", encoding="utf-8") as out:
        json.dump(document, out)
