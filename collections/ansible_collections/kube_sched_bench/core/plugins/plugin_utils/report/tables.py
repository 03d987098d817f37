# -*- coding: utf-8 -*-
"""The report's tables of results: the fleet's (each scheduler across hosts) and each host's, their cells, the
groups of columns they are split into, and the lines beside them (failures, busy hosts, what bounded the
throughput, capacities that differ). No I/O here."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.host_load import describe_repeats
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.aggregate import (
    fleet_change,
    fleet_results,
    fleet_stat,
    format_change,
    host_change,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.blocks import Cell, Table, format_number, format_stat
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import (
    LATENCY_KEYS,
    METRIC,
    METRICS,
    NOT_AVAILABLE,
    describe_failure,
)


def with_change(text, change):
    # Only numbers present in both runs carry a change; the overview says so.
    if change is None or change.absolute is None:
        return Cell(text)
    return Cell("%s %s" % (text, format_change(change)), change.tone)


def metric_cell(stat, change=None, result=None):
    """A figure's cell; one that ``result`` lacks because an older toolkit wrote it names that toolkit's schema."""
    if stat.median is None and result is not None and result.has_numbers:
        return Cell(result.missing_text())
    return with_change(format_stat(stat), change)


STATUS_TONE = {"complete": None, "partial": "bad", "failed": "bad", "incomplete": "bad", "newer": "bad",
               "unreadable": "bad", "not run": "bad"}


def status_cell(result):
    text = result.status
    if result.status == "complete" and result.repeats > 1:
        text = "complete (%d/%d repeats)" % (len(result.complete_samples), result.repeats)
    elif result.status == "partial":
        text = "partial (%d/%d repeats complete)" % (len(result.complete_samples), result.repeats)
    reason = result.reason
    if reason:
        text += ": " + reason
    if result.busy_host:
        return Cell(text + "; busy host (%s %% other CPU)" % format_number(
            result.host_load["worst"]["other_cpu_percent"]), "bad")
    return Cell(text, STATUS_TONE[result.status])


def pods_cell(result, change=None):
    stat = result.stat(METRIC["pods_bound"])
    text = format_stat(stat)
    if stat.median is not None and result.pods_expected is not None:
        text += " / " + format_number(result.pods_expected)
    return with_change(text, change)


def capacity_text(capacity, detail=True):
    """'1000 CPU, 1000Gi (queue quota (seed)); bound 90 s' from SchedulerResult.capacity; n/a without one.

    Without ``detail``, only the CPU and memory ('1000 CPU, 1000Gi').
    """
    if not capacity:
        return NOT_AVAILABLE
    cap = capacity["capacity"]
    text = "%s CPU, %s" % (format_number(cap.get("cpu")), cap.get("memory"))
    if detail:
        text += " (%s); bound %s s" % (cap.get("limited_by"), format_number(capacity["bound"].get("seconds")))
    return text


HOST_TABLE_HEADERS = ["Scheduler", "Pods bound / expected", "Capacity; makespan bound"] + [
    metric.label for metric in METRICS[1:]] + ["Throughput limited by", "Timing source", "Status"]


def host_table(run, host, previous=None):
    rows = []
    for scheduler, result in run.hosts[host].schedulers.items():
        def change(metric, scheduler=scheduler):
            return host_change(run, previous, host, scheduler, metric) if previous else None
        name = "%s (%s)" % (scheduler, result.version) if result.version else scheduler
        row = [Cell(name), pods_cell(result, change(METRIC["pods_bound"])), Cell(capacity_text(result.capacity))]
        row += [metric_cell(result.stat(metric), change(metric), result) for metric in METRICS[1:]]
        row += [Cell((result.throughput_limited_by or {}).get("stage") or NOT_AVAILABLE),
                Cell(result.timing_source or NOT_AVAILABLE), status_cell(result)]
        rows.append(row)
    return Table(list(HOST_TABLE_HEADERS), rows)


FLEET_TABLE_HEADERS = ["Scheduler", "Hosts with results", "Capacity; makespan bound"] + [
    metric.label for metric in METRICS]


COST_KEYS = ("scheduler_cpu_s", "scheduler_peak_rss_mb")
# The host and fleet tables as a laptop's screen shows them: one table per group of columns, each led by the
# scheduler; a column no group names (a figure added later) joins the last group.
TABLE_GROUPS = (
    ("Throughput and makespan", ["Hosts with results", "Pods bound / expected"] + [
        metric.label for metric in METRICS if metric.key not in LATENCY_KEYS + COST_KEYS]),
    ("Scheduling latency", [METRIC[key].label for key in LATENCY_KEYS]),
    ("Capacity, cost and status", []),
)


def fleet_capacity(run, scheduler, detail=True):
    """The capacity texts of a scheduler's hosts, each once."""
    texts = []
    for host in run.hosts:
        result = run.result(host, scheduler)
        text = capacity_text(result.capacity, detail) if result is not None and result.capacity else None
        if text and text not in texts:
            texts.append(text)
    return texts


def capacity_note(run):
    """A sentence when the schedulers of the run could not use the same capacity, else None."""
    by_capacity = {}
    for scheduler in run.scheduler_names:
        for text in fleet_capacity(run, scheduler, detail=False):
            by_capacity.setdefault(text, []).append(scheduler)
    if len(by_capacity) < 2:
        return None
    return ("The schedulers did not have the same capacity: %s. A makespan is only as short as its capacity allows "
            "(the bound); compare them by efficiency (bound / makespan, 1 is the best possible), or run again with "
            "bench_queue_quota=cluster to give every scheduler the whole cluster." % "; ".join(
                "%s had %s" % (", ".join(names), text) for text, names in by_capacity.items()))


def fleet_table(run, previous=None):
    rows = []
    for scheduler in run.scheduler_names:
        counted = len(fleet_results(run, scheduler))
        row = [Cell(scheduler), Cell("%d of %d" % (counted, len(run.hosts)), None if counted == len(run.hosts)
                                     else "bad"), Cell("; ".join(fleet_capacity(run, scheduler)) or NOT_AVAILABLE)]
        for metric in METRICS:
            change = fleet_change(run, previous, scheduler, metric) if previous else None
            row.append(metric_cell(fleet_stat(run, scheduler, metric), change))
        rows.append(row)
    return Table(list(FLEET_TABLE_HEADERS), rows)


def busy_lines(run, host):
    """One line per scheduler of the host measured on a busy host: how busy."""
    return ["%s: %s" % (scheduler, describe_repeats(result.host_load))
            for scheduler, result in run.hosts[host].schedulers.items() if result.busy_host]


def limit_lines(run, host):
    """One line per scheduler of the host: the stage that bounded its throughput, and the evidence."""
    return ["%s: %s (%s)" % (scheduler, result.throughput_limited_by["stage"], result.throughput_limited_by["evidence"])
            for scheduler, result in run.hosts[host].schedulers.items() if result.throughput_limited_by]


def failure_lines(run):
    lines = []
    for host in run.hosts.values():
        if host.failure:
            lines.append("host %s failed at %s" % (host.name, describe_failure(host.failure)))
        for result in host.schedulers.values():
            # A scheduler the failed host never reached is covered by the host's line.
            if result.status != "complete" and not (result.status == "not run" and host.failure):
                lines.append("%s / %s: %s%s" % (host.name, result.name, result.status,
                                                ": " + result.reason if result.reason else ""))
    return lines
