# -*- coding: utf-8 -*-
"""report.csv: its columns, and one row per host and scheduler with the raw numbers (and, against an earlier run,
each figure's previous value, change, verdict and p). No I/O here."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.aggregate import host_change
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import METRICS, number_at


def csv_fields(compared):
    fields = ["run_id", "host", "scheduler", "status", "reason", "repeats", "repeats_complete", "timing_source",
              "pods_expected", "capacity_cpu", "capacity_memory", "capacity_limited_by", "makespan_bound_s"]
    for metric in METRICS:
        fields += [metric.key, metric.key + "_min", metric.key + "_max", metric.key + "_ci_low",
                   metric.key + "_ci_high"]
        if compared:
            fields += [metric.key + "_previous", metric.key + "_change_pct", metric.key + "_verdict",
                       metric.key + "_p_value"]
    return fields + ["kernel", "distribution", "cpus", "memory_mb", "ceiling_pods_per_s", "cpu_passes_per_s",
                     "host_other_cpu_percent", "host_busy"]


def csv_value(value):
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def csv_rows(run, previous=None):
    rows = []
    for host in run.hosts.values():
        system = (host.env or {}).get("system") or {}
        calibration = host.calibration or {}
        for scheduler, result in host.schedulers.items():
            row = {
                "run_id": run.run_id, "host": host.name, "scheduler": scheduler, "status": result.status,
                "reason": result.reason or "", "repeats": result.repeats,
                "repeats_complete": len(result.complete_samples), "timing_source": result.timing_source or "",
                "pods_expected": csv_value(result.pods_expected),
                "kernel": system.get("kernel", ""),
                "distribution": " ".join(str(system[key]) for key in ("distribution", "distribution_version")
                                         if system.get(key)),
                "cpus": system.get("cpus", ""), "memory_mb": system.get("memory_mb", ""),
                "ceiling_pods_per_s": csv_value(number_at(calibration, ("api_create", "ceiling_pods_per_s"))),
                "cpu_passes_per_s": csv_value(number_at(calibration, ("cpu", "passes_per_s", "median"))),
            }
            load = result.host_load
            row.update(host_other_cpu_percent=csv_value(load["worst"]["other_cpu_percent"]) if load else "",
                       host_busy=("true" if load["busy_repeats"] else "false") if load else "")
            capacity = result.capacity or {"capacity": {}, "bound": {}}
            row.update(capacity_cpu=csv_value(capacity["capacity"].get("cpu")),
                       capacity_memory=capacity["capacity"].get("memory", ""),
                       capacity_limited_by=capacity["capacity"].get("limited_by", ""),
                       makespan_bound_s=csv_value(capacity["bound"].get("seconds")))
            for metric in METRICS:
                stat = result.stat(metric)
                row[metric.key] = csv_value(stat.median)
                row[metric.key + "_min"] = csv_value(stat.low)
                row[metric.key + "_max"] = csv_value(stat.high)
                row[metric.key + "_ci_low"] = csv_value(stat.ci_low)
                row[metric.key + "_ci_high"] = csv_value(stat.ci_high)
                if previous is not None:
                    change = host_change(run, previous, host.name, scheduler, metric)
                    row[metric.key + "_previous"] = csv_value(change.previous)
                    row[metric.key + "_change_pct"] = csv_value(
                        round(change.percent, 3) if change.percent is not None else None)
                    row[metric.key + "_verdict"] = change.verdict.verdict
                    row[metric.key + "_p_value"] = csv_value(change.verdict.p)
            rows.append(row)
    return rows
