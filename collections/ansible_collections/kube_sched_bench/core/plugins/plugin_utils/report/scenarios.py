# -*- coding: utf-8 -*-
"""The report's scenario sections: what a scenario measures (sched_scenario_metrics), per host and scheduler.

Every run records in each summary.json ``scenario``, ``scenario_metrics``, ``unsupported`` (the features the
scheduler cannot express) and ``findings`` (the promises it broke), and writes jobs.csv (each job's latency
breakdown). For a scenario other than the seed's burst (whose figures the report's main tables show), this
module turns them into one table per feature of the scenario, the findings, and four charts: each tenant's share
of the allocated CPU against its target, the CDF of the time to a full gang, the CDF of pod latency, and the job
latency breakdown as stacked bars. No I/O here.
"""
from __future__ import annotations

from dataclasses import dataclass

from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.spec import BURST
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.blocks import (
    AreaChart,
    Cell,
    Heading,
    Image,
    LineChart,
    Paragraph,
    StackedBarChart,
    Table,
    format_stat,
    slug,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import number_at, stat_of
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.run import CHARTS_DIR

# The job milestones after creation (sched_scenario_metrics.STAGES), as the breakdown shows them.
STAGE_LABELS = (("admitted", "created → admitted"), ("first_pod_created", "→ first pod created"),
                ("first_bound", "→ first pod bound"), ("all_bound", "→ all pods bound"))


@dataclass(frozen=True)
class Figure:
    label: str
    path: tuple             # under summary.json's scenario_metrics; a last item "len" counts a list
    higher_is_better: bool = False


def _latency(prefix, section, key):
    return [Figure("%s %s (ms)" % (prefix, level), (section, key, level)) for level in ("p50", "p90", "p99")]


# feature (as in summary.json's unsupported and sched_scenarios.THRESHOLDS) -> (title, figures).
SECTIONS = (
    ("breakdown", "Job latency breakdown (ms after the job's creation, p50)",
     [Figure(label + " (ms)", ("breakdown", stage + "_ms", "p50")) for stage, label in STAGE_LABELS]
     + [Figure("Jobs all bound", ("breakdown", "jobs_all_bound"), True), Figure("Jobs", ("breakdown", "jobs"))]),
    ("gang", "Gangs",
     [Figure("Full gangs", ("gang", "full_gangs"), True), Figure("Gang jobs", ("gang", "gang_jobs"))]
     + _latency("Time to full gang", "gang", "time_to_full_gang_ms")
     + [Figure("Jobs ever partial", ("gang", "partial_gang_jobs")),
        Figure("Partial-gang exposure (pod·s)", ("gang", "partial_gang_pod_s")),
        Figure("Stuck partial", ("gang", "stuck_partial_jobs", "len")),
        Figure("Stalls", ("gang", "stalls", "len"))]),
    ("fair_share", "Fair share",
     [Figure("Fairness error (0 = perfect)", ("fair_share", "fairness_error")),
      Figure("Jain's index (1 = perfect)", ("fair_share", "jain_index"), True),
      Figure("Seconds with CPU allocated", ("fair_share", "covered_s"))]),
    ("priority", "Priority",
     _latency("High-priority job → all bound", "priority", "high_priority_wait_ms")
     + [Figure("High-priority jobs never bound", ("priority", "high_priority_unbound_jobs", "len")),
        Figure("Pods preempted", ("priority", "pods_preempted")),
        Figure("Work lost (pod·s)", ("priority", "work_lost_pod_s"))]),
    ("steady", "Steady arrivals (warm-up excluded)",
     [Figure("Window from (s)", ("steady", "window", "from_s")), Figure("Window to (s)", ("steady", "window", "to_s"))]
     + _latency("Pod latency", "steady", "latency_ms")
     + [Figure("Offered (pods/s)", ("steady", "offered_pods_per_s")),
        Figure("Achieved (pods/s)", ("steady", "bound_pods_per_s"), True),
        Figure("Pods unbound", ("steady", "pods_unbound"))]),
    ("packing", "Packing",
     [Figure("Peak CPU share", ("utilization", "peak_cpu_share"), True),
      Figure("Peak memory share", ("utilization", "peak_memory_share"), True),
      Figure("Mean CPU share", ("utilization", "mean_cpu_share"), True)]),
)


def figure_value(summary, figure):
    """A figure of one summary: a number, a list's length (path ending in "len"), or None."""
    if figure.path[-1] == "len":
        value = summary.get("scenario_metrics") or {}
        for key in figure.path[:-1]:
            value = value.get(key) if isinstance(value, dict) else None
        return float(len(value)) if isinstance(value, list) else None
    return number_at(summary, ("scenario_metrics",) + figure.path)


def scenario_name(summary):
    scenario = (summary or {}).get("scenario")
    return str(scenario.get("name") if isinstance(scenario, dict) else scenario or "")


def scenario_samples(result):
    """The repeats of a scheduler that measured a scenario other than the burst."""
    return [sample for sample in result.usable_samples if isinstance(sample.summary.get("scenario_metrics"), dict)
            and scenario_name(sample.summary) != BURST]


def _results(run):
    """[(host, scheduler, result, samples)] of the results that measured a scenario, in report order."""
    out = []
    for host in run.hosts.values():
        for name in run.scheduler_names:
            result = host.schedulers.get(name)
            samples = scenario_samples(result) if result is not None else []
            if samples:
                out.append((host.name, name, result, samples))
    return out


def unsupported(samples):
    found = []
    for sample in samples:
        for feature in sample.summary.get("unsupported") or []:
            if feature not in found:
                found.append(str(feature))
    return found


def findings_lines(rows):
    """One line per finding of a host and scheduler; with repeats, how many of them had it."""
    lines = []
    for host, scheduler, _, samples in rows:
        counts = {}
        for sample in samples:
            for sentence in sample.summary.get("findings") or []:
                counts[str(sentence)] = counts.get(str(sentence), 0) + 1
        for sentence, count in counts.items():
            where = "%s on %s" % (scheduler, host)
            repeats = " (in %d of %d repeats)" % (count, len(samples)) if len(samples) > 1 else ""
            lines.append("%s: %s%s" % (where, sentence, repeats))
    return lines


def section_table(rows, feature, figures):
    """(headers, rows of text) of one feature, or None when no result has it."""
    measured = [(host, scheduler, samples) for host, scheduler, _, samples in rows
                if any(any(figure_value(sample.summary, figure) is not None for figure in figures) for sample in samples)]
    if not measured:
        return None
    headers = ["Host", "Scheduler", "Native support"] + [figure.label for figure in figures]
    table = []
    for host, scheduler, samples in measured:
        missing = [item for item in unsupported(samples) if item == feature]
        support = "no: measured as the scheduler behaves, not its promise" if missing else "yes"
        table.append([host, scheduler, support] + [
            format_stat(stat_of([figure_value(sample.summary, figure) for sample in samples], interval=True)) for figure in figures])
    return headers, table


def _tenant_stat(samples, tenant, *path):
    return stat_of([number_at(sample.summary, ("scenario_metrics", "fair_share", "tenants", tenant) + path)
                    for sample in samples])


def tenant_table(rows):
    """(headers, rows): each tenant's weight, time-averaged share and target, per host and scheduler."""
    table = []
    for host, scheduler, _, samples in rows:
        tenants = (samples[0].summary["scenario_metrics"].get("fair_share") or {}).get("tenants") or {}
        for tenant in tenants:
            table.append([host, scheduler, tenant] + [format_stat(_tenant_stat(samples, tenant, *path)) for path in (
                ("weight",), ("share",), ("target",), ("job_latency_ms", "p50"))])
    if not table:
        return None
    return ["Host", "Scheduler", "Tenant", "Weight", "Share of allocated CPU", "Target share", "Job latency p50 (ms)"], table


def _middle(samples):
    return samples[(len(samples) - 1) // 2]


def share_chart(host, scheduler, samples, file_name):
    series = ((_middle(samples).summary["scenario_metrics"].get("fair_share") or {}).get("series") or [])
    if not series:
        return None
    tenants = list(series[0]["shares"])
    xs = [point["second"] for point in series]
    shares = {tenant: (xs, [point["shares"].get(tenant, 0.0) for point in series]) for tenant in tenants}
    targets = {tenant: (xs, [point["targets"].get(tenant, 0.0) for point in series]) for tenant in tenants}
    return AreaChart(file_name, "Share of the allocated CPU per tenant: %s on %s (dashed: target)" % (scheduler, host),
                     "seconds since the first job was created", "share of allocated CPU", shares, targets)


def cdf(values):
    """(xs, ys) of the empirical CDF of ``values``; a None (never reached) counts in the whole, so the curve ends
    below 1 by the share of those."""
    ordered = sorted(value for value in values if value is not None)
    return ordered, [(index + 1) / len(values) for index in range(len(ordered))]


def cdf_chart(rows, host, file_name, title, values_of):
    from_host = [(scheduler, values_of(_middle(samples))) for row_host, scheduler, _, samples in rows if row_host == host]
    series = {scheduler: cdf(values) for scheduler, values in from_host if any(value is not None for value in values)}
    if not series:
        return None
    return LineChart(file_name, title % host, "seconds", "fraction", series)


def gang_seconds(sample):
    """Each gang job's time to full gang (s: creation until it first held all its pods at once), None for one never
    whole."""
    return [None if row.get("full_gang_ms") is None else row["full_gang_ms"] / 1000.0
            for row in sample.jobs if row["gang"]]


def pod_seconds(sample):
    return [value / 1000.0 for value in sample.pod_latency_ms]


def breakdown_chart(rows, host, file_name):
    """Per scheduler, the median time from each milestone to the next, stacked (a stage it lacks counts 0)."""
    chosen = [(scheduler, samples) for row_host, scheduler, _, samples in rows if row_host == host]
    stacks = {label: [] for _, label in STAGE_LABELS}
    for _, samples in chosen:
        previous = 0.0
        for stage, label in STAGE_LABELS:
            stat = stat_of([number_at(sample.summary, ("scenario_metrics", "breakdown", stage + "_ms", "p50"))
                            for sample in samples])
            if stat.median is None:
                stacks[label].append(None)
                continue
            stacks[label].append(max(stat.median - previous, 0.0) / 1000.0)
            previous = max(previous, stat.median)
    if not any(value for values in stacks.values() for value in values):
        return None
    return StackedBarChart(file_name, "Job latency breakdown on %s (medians)" % host, "seconds",
                           [scheduler for scheduler, _ in chosen], stacks)


def _list(title, lines):
    return Paragraph(title + "\n" + "\n".join("- " + line for line in lines))


def _table(headers, rows):
    return Table(headers, [[Cell(text) for text in row] for row in rows])


def _hosts(rows):
    seen = []
    for host, _, _, _ in rows:
        if host not in seen:
            seen.append(host)
    return seen


def _charts_of(rows, feature):
    """The charts of one feature's section."""
    if feature == "fair_share":
        return [share_chart(host, scheduler, samples, "share-%s-%s.png" % (slug(host), slug(scheduler)))
                for host, scheduler, _, samples in rows]
    if feature == "gang":
        return [cdf_chart(rows, host, "gang-cdf-%s.png" % slug(host),
                          "Time to full gang on %s (CDF over gang jobs; below 1: never whole)", gang_seconds)
                for host in _hosts(rows)]
    if feature == "breakdown":
        return [chart for host in _hosts(rows) for chart in (
            breakdown_chart(rows, host, "breakdown-%s.png" % slug(host)),
            cdf_chart(rows, host, "pod-latency-cdf-%s.png" % slug(host), "Pod latency on %s (CDF, creation → bound)",
                      pod_seconds))]
    return []


def scenario_blocks(run):
    """(blocks, charts) of the scenario sections, or ([], []) when no result measured a scenario."""
    rows = _results(run)
    if not rows:
        return [], []
    names = sorted({scenario_name(sample.summary) for _, _, _, samples in rows for sample in samples} - {""})
    blocks = [Heading(2, "Scenario %s" % (", ".join(names) or "(unnamed)"), "scenario")]
    lacking = ["%s on %s cannot express: %s" % (scheduler, host, ", ".join(unsupported(samples)))
               for host, scheduler, _, samples in rows if unsupported(samples)]
    if lacking:
        blocks.append(_list("Not supported natively (measured as the scheduler behaves, never approximated):",
                            lacking))
    findings = findings_lines(rows)
    blocks.append(_list("Findings (promises of the scenario that a scheduler broke):", findings) if findings
                  else Paragraph("Findings: none; every scheduler kept the scenario's promises."))
    charts = []
    for feature, title, figures in SECTIONS:
        built = section_table(rows, feature, figures)
        if built is None:
            continue
        blocks += [Heading(3, title, "scenario-" + feature.replace("_", "-")), _table(*built)]
        if feature == "fair_share":
            tenants = tenant_table(rows)
            if tenants:
                blocks.append(_table(*tenants))
        for chart in _charts_of(rows, feature):
            if chart is not None:
                charts.append(chart)
                blocks.append(Image(CHARTS_DIR + "/" + chart.file_name, chart.title))
    return blocks, charts
