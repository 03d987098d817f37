# -*- coding: utf-8 -*-
"""The report's verdicts: the gate's section (bench_gate's checks, passed, missed or refused) and the comparison
with an earlier run (every figure's change, the test's verdict and p). No I/O here."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.stats import format_p
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.aggregate import (
    fleet_change,
    fleet_stat,
    format_change,
    host_change,
    host_stat,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.blocks import (
    Cell,
    Heading,
    Paragraph,
    Table,
    format_number,
    format_stat,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import METRICS, NOT_AVAILABLE


def comparison_row(where, scheduler, metric, before, now, change):
    verdict = change.verdict
    return [Cell(where), Cell(scheduler), Cell(metric.key), Cell(format_stat(before)), Cell(format_stat(now)),
            Cell(format_change(change) if change.absolute is not None else NOT_AVAILABLE),
            Cell(verdict.verdict if verdict.reason is None else verdict.describe(), verdict.tone),
            Cell(format_p(verdict.p) if verdict.p is not None else NOT_AVAILABLE), Cell(verdict.test or NOT_AVAILABLE)]


def comparison_table(run, previous):
    """Every figure against the earlier run: both values, the change, the test's verdict and p."""
    rows = []
    for host in run.hosts:
        for scheduler in run.hosts[host].schedulers:
            for metric in METRICS:
                change = host_change(run, previous, host, scheduler, metric)
                if change.previous is not None or change.current is not None:
                    rows.append(comparison_row(host, scheduler, metric, host_stat(previous, host, scheduler, metric),
                                               host_stat(run, host, scheduler, metric), change))
    if len(run.hosts) > 1:
        for scheduler in run.scheduler_names:
            for metric in METRICS:
                change = fleet_change(run, previous, scheduler, metric)
                if change.previous is not None or change.current is not None:
                    rows.append(comparison_row("fleet (median of hosts)", scheduler, metric,
                                               fleet_stat(previous, scheduler, metric),
                                               fleet_stat(run, scheduler, metric), change))
    headers = ["Host", "Scheduler", "Figure", "Run " + previous.run_id, "This run", "Δ", "Verdict", "p", "Test"]
    return Table(headers, rows)


def comparison_blocks(run, previous):
    """The section "Against run <id>", or nothing without an earlier run."""
    if previous is None:
        return []
    return [Heading(2, "Against run %s" % previous.run_id, "comparison"), comparison_table(run, previous)]


def gate_verdict(checks, refused):
    """passed, missed, refused, or "missed and refused"."""
    missed = any(not check.passed for check in checks)
    return " and ".join(word for word, found in (("missed", missed), ("refused", refused)) if found) or "passed"


def gate_blocks(checks, refused=()):
    missed = [check for check in checks if not check.passed]
    text = "%d check%s of bench_gate: %s." % (len(checks), "" if len(checks) == 1 else "s",
                                              "%d missed" % len(missed) if missed else "all passed")
    if refused:
        text += (" %d result%s not judged: measured on a busy host (bench_gate_busy=refuse)."
                 % (len(refused), "" if len(refused) == 1 else "s"))
    rows = [[Cell(refusal.host), Cell(refusal.scheduler), Cell("(all)"),
             Cell("%s %% other CPU" % format_number(refusal.other_cpu_percent)), Cell("bench_gate_busy=refuse"),
             Cell("refused", "bad"), Cell("busy host in run %s: %s" % (refusal.run, refusal.how_busy))]
            for refusal in refused]
    rows += [[Cell(check.host), Cell(check.scheduler), Cell(check.figure), Cell(check.value_text),
              Cell(check.threshold.text), Cell("passed" if check.passed else "missed", "better" if check.passed else "bad"),
              Cell(check.why or "")] for check in checks]
    table = Table(["Host", "Scheduler", "Figure", "Value", "Threshold", "Result", "Why"], rows)
    return [Heading(2, "Gate: %s" % gate_verdict(checks, refused), "gate"), Paragraph(text), table]


def gate_summary(checks, refused):
    """The gate's outcome as the report's summary (report.json) holds it."""
    return {"checks": len(checks), "passed": sum(1 for check in checks if check.passed),
            "missed": [check.as_dict() for check in checks if not check.passed],
            "refused": [refusal.as_dict() for refusal in refused],
            "verdict": gate_verdict(checks, refused)}
