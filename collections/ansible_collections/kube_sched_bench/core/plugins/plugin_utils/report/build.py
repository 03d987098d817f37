# -*- coding: utf-8 -*-
"""Building the benchmark report from a loaded run (run.load_run).

build_report turns a run into a ``Report``: a list of blocks (headings, tables,
images) plus chart data and CSV rows; render.py turns those into Markdown, HTML,
CSV and PNG. This module puts the sections in their order; each section comes
from its own module (tables, charts, verdicts, environment, scenarios, csv_table).
Nothing here reads or writes files: the action (task.py) does that. Unit-tested in
tests/unit/test_report.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.stats import (
    ALPHA,
    CONFIDENCE,
    MIN_SAMPLES_FOR_INTERVAL,
    RESAMPLES,
    SEED,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result.schema import REPORT_SCHEMA_VERSION
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.aggregate import Change, fleet_change, format_change  # noqa: F401 (read as build.<name> by the tests)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.blocks import (  # noqa: F401 (Cell ... BarChart: the report's vocabulary)
    BarChart,
    Cell,
    Heading,
    Image,
    LineChart,
    Paragraph,
    Table,
    chunk_columns,
    format_number,
    format_stat,
    slug,
    split_table,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.charts import (
    backlog_chart,
    bound_chart,
    chart_file_names,
    chart_image,
    latency_chart,
    throughput_chart,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.csv_table import csv_fields, csv_rows
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.environment import (  # noqa: F401 (calibration_table ... phases_table: read as build.<name> by the tests)
    calibration_table,
    environment_blocks,
    environment_tables,
    phases_blocks,
    phases_table,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.gate import JUDGE
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.gate import evaluate as evaluate_gate
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.gate import refusals as gate_refusals
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.profiles import profile_blocks
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.scenarios import scenario_blocks
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.tables import (
    TABLE_GROUPS,
    busy_lines,
    capacity_note,
    failure_lines,
    fleet_table,
    host_table,
    limit_lines,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.verdicts import (  # noqa: F401 (comparison_table: read as build.comparison_table by the tests)
    comparison_blocks,
    comparison_table,
    gate_blocks,
    gate_summary,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.why import why_blocks


@dataclass
class Report:
    title: str
    blocks: list
    charts: list
    csv_fields: list
    csv_rows: list
    summary: dict
    # What the files beside the report are made of (gate.junit.xml, metrics.prom): the run, its gate and outcome.
    run: object = None
    gate: object = None
    gate_checks: list = field(default_factory=list)
    gate_refused: list = field(default_factory=list)


def overview(run, previous):
    failed = run.failed_hosts
    text = "%d host%s (%s), schedulers: %s." % (
        len(run.hosts), "" if len(run.hosts) == 1 else "s",
        "%d failed" % len(failed) if failed else "none failed", ", ".join(run.scheduler_names) or "none")
    if run.max_repeats > 1:
        text += (" Each scheduler ran up to %d times per host: a cell shows the median over the complete repeats "
                 "and, when they differ, in brackets its %d %% confidence interval with %d or more repeats "
                 "(percentile bootstrap over the repeats, %d resamples, seed %d), else their min–max in "
                 "parentheses." % (run.max_repeats, round(CONFIDENCE * 100), MIN_SAMPLES_FOR_INTERVAL, RESAMPLES,
                                   SEED))
    busy = ["%s/%s" % (host.name, name) for host in run.hosts.values() for name, result in host.schedulers.items()
            if result.busy_host]
    if busy:
        text += (" Measured on a busy host (other processes above bench_busy_threshold; how busy under each host's "
                 "table): %s." % ", ".join(busy))
    if len(run.hosts) > 1:
        text += " The fleet table shows, per scheduler, the median of the hosts' numbers and their min–max."
    if previous is not None:
        text += (" Δ is the change against run %s (same host and scheduler; for the fleet, its median); "
                 "numbers without Δ have no counterpart there. A change is coloured only when a two-sided "
                 "Mann-Whitney U test over the repeats (for the fleet, over the hosts' medians) finds it "
                 "significant, p <= %g; the comparison section gives each figure's verdict and p, or why no "
                 "verdict is possible (too few repeats on either side)." % (previous.run_id, ALPHA))
    return text


def failure_blocks(run):
    """The section "Failures": a line per failed host and per scheduler without complete results; none without."""
    failures = failure_lines(run)
    if not failures:
        return []
    return [Heading(2, "Failures", "failures"), Paragraph("\n".join("- " + line for line in failures))]


def fleet_section(run, previous):
    """(blocks, charts) of the section "Fleet": its tables, the capacity note, the latency and throughput charts."""
    blocks = [Heading(2, "Fleet: each scheduler across hosts", "fleet")] + split_table(fleet_table(run, previous),
                                                                                     TABLE_GROUPS)
    note = capacity_note(run)
    if note:
        blocks.append(Paragraph(note))
    charts = [chart for chart in (latency_chart(run), throughput_chart(run)) if chart is not None]
    return blocks + [chart_image(chart) for chart in charts], charts


def host_section(run, host, previous, bound_file, backlog_file):
    """(blocks, charts) of a host's section: its tables, what was busy and what bounded the throughput, its charts."""
    heading = "Host %s" % host.name
    if host.failure:
        heading += " (failed at %s)" % (host.failure["task"] or "an unknown task")
    blocks = [Heading(2, heading, "host-" + slug(host.name))] + split_table(host_table(run, host.name, previous),
                                                                             TABLE_GROUPS)
    busy = busy_lines(run, host.name)
    if busy:
        blocks.append(Paragraph("Measured on a busy host (bench_busy_threshold):\n"
                                + "\n".join("- " + line for line in busy)))
    limits = limit_lines(run, host.name)
    if limits:
        blocks.append(Paragraph("What bounded the throughput:\n" + "\n".join("- " + line for line in limits)))
    charts = []
    chart = bound_chart(run, host.name, bound_file)
    if chart is None:
        blocks.append(Paragraph("No pods-bound timeline was recorded on this host."))
    else:
        charts.append(chart)
        blocks.append(chart_image(chart))
    chart = backlog_chart(run, host.name, backlog_file)
    if chart is not None:
        charts.append(chart)
        blocks.append(chart_image(chart))
    return blocks + why_blocks(run, host.name) + profile_blocks(run, host.name), charts


def host_sections(run, previous):
    """(blocks, charts) of every host's section, in the run's order of hosts."""
    blocks, charts = [], []
    bound_files = chart_file_names(run.hosts)
    backlog_files = chart_file_names(run.hosts, "backlog-")
    for host in run.hosts.values():
        section_blocks, section_charts = host_section(run, host, previous, bound_files[host.name],
                                                      backlog_files[host.name])
        blocks += section_blocks
        charts += section_charts
    return blocks, charts


def report_summary(run, previous, gate, checks, refused):
    """What the action returns and report.json holds: the run's outline, the statistics used, the gate's outcome."""
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "run_id": run.run_id,
        "hosts": len(run.hosts),
        "failed_hosts": [host.name for host in run.failed_hosts],
        "schedulers": run.scheduler_names,
        "max_repeats": run.max_repeats,
        "not_complete": ["%s/%s" % (host.name, result.name) for host in run.hosts.values()
                         for result in host.schedulers.values() if result.status != "complete"],
        "compared_to": previous.run_id if previous is not None else None,
        "statistics": {"interval": "percentile bootstrap of the median over the repeats",
                       "confidence": CONFIDENCE, "min_repeats": MIN_SAMPLES_FOR_INTERVAL, "resamples": RESAMPLES,
                       "seed": SEED, "test": "Mann-Whitney U, two-sided", "alpha": ALPHA},
        "gate": gate_summary(checks, refused) if gate else None,
    }


def build_report(run, previous=None, gate=None, gate_busy=JUDGE):
    """Everything the report shows, as data; nothing is written. ``gate`` is a parsed sched_gate.Gate; ``gate_busy``
    (bench_gate_busy) says whether it judges the results measured on a busy host."""
    title = "Scheduler benchmark, run %s" % run.run_id
    blocks = [Heading(1, title), Paragraph(overview(run, previous))]
    charts = []
    refused = gate_refusals(gate, run, previous, gate_busy) if gate else []
    checks = evaluate_gate(gate, run, previous, refused) if gate else []
    if gate:
        blocks += gate_blocks(checks, refused)
    blocks += failure_blocks(run)
    for section_blocks, section_charts in (fleet_section(run, previous), host_sections(run, previous),
                                           scenario_blocks(run)):
        blocks += section_blocks
        charts += section_charts
    blocks += comparison_blocks(run, previous) + phases_blocks(run) + environment_blocks(run)
    summary = report_summary(run, previous, gate, checks, refused)
    return Report(title, blocks, charts, csv_fields(previous is not None), csv_rows(run, previous), summary,
                  run, gate, checks, refused)
