# -*- coding: utf-8 -*-
"""Building the benchmark report from a loaded run (sched_report_run.load_run).

The builders turn a run into a ``Report``: a list of blocks (headings, tables,
images) plus chart data and CSV rows; sched_report_render turns those into
Markdown, HTML, CSV and PNG. Nothing here reads or writes files: the Ansible
module library/bench_report.py does that. Unit-tested in tests/unit/test_report.py.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.host_load import describe_repeats
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.stats import (
    ALPHA,
    CONFIDENCE,
    MIN_SAMPLES_FOR_INTERVAL,
    RESAMPLES,
    SEED,
    compare,
    format_p,
)
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
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.gate import JUDGE
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.gate import evaluate as evaluate_gate
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.gate import refusals as gate_refusals
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.phases import table_rows as phase_table_rows
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.run import (
    CHARTS_DIR,
    LATENCY_KEYS,
    METRIC,
    METRICS,
    NOT_AVAILABLE,
    Stat,
    describe_failure,
    number_at,
    stat_of,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.scenarios import scenario_blocks


# ---------------------------------------------------------------------------
# Aggregation
# ---------------------------------------------------------------------------
def fleet_stat(run, scheduler, metric):
    """Median and min-max across hosts of each host's median over repeats."""
    return stat_of(result.stat(metric).median for result in fleet_results(run, scheduler))


def fleet_results(run, scheduler):
    """The hosts' results for a scheduler that count in the fleet numbers: those with a complete repeat."""
    results = (run.result(host, scheduler) for host in run.hosts)
    return [result for result in results if result is not None and result.has_numbers]


@dataclass
class Change:
    previous: float | None
    current: float | None
    higher_is_better: bool
    verdict: object = None      # sched_stats.Verdict of the repeats (hosts, for the fleet) of both runs

    @property
    def absolute(self):
        if self.previous is None or self.current is None:
            return None
        return self.current - self.previous

    @property
    def percent(self):
        if self.absolute is None or self.previous == 0:
            return None
        return self.absolute / abs(self.previous) * 100.0

    @property
    def tone(self):
        """Only a change the test finds significant is coloured."""
        return self.verdict.tone if self.verdict is not None and self.absolute else None


def repeat_values(result, metric):
    return result.values(metric) if result is not None and result.has_numbers else []


def host_change(run, previous, host, scheduler, metric):
    before = previous.result(host, scheduler) if previous else None
    now = run.result(host, scheduler)
    return Change(before.stat(metric).median if before and before.has_numbers else None,
                  now.stat(metric).median if now and now.has_numbers else None,
                  metric.higher_is_better,
                  compare(repeat_values(before, metric), repeat_values(now, metric), metric.higher_is_better))


def host_medians(run, scheduler, metric):
    return [result.stat(metric).median for result in fleet_results(run, scheduler)]


def fleet_change(run, previous, scheduler, metric):
    """The fleet's change; its test takes each host's median as one sample."""
    return Change(fleet_stat(previous, scheduler, metric).median, fleet_stat(run, scheduler, metric).median,
                  metric.higher_is_better,
                  compare(host_medians(previous, scheduler, metric), host_medians(run, scheduler, metric),
                          metric.higher_is_better))


# ---------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------
def format_change(change):
    if change.percent is not None:
        return "Δ %+.1f%%" % change.percent
    return "Δ %+g" % change.absolute


# ---------------------------------------------------------------------------
# Document blocks, rendered to Markdown and HTML alike
# ---------------------------------------------------------------------------
@dataclass
class Report:
    title: str
    blocks: list
    charts: list
    csv_fields: list
    csv_rows: list
    summary: dict


def with_change(text, change):
    # Only numbers present in both runs carry a change; the overview says so.
    if change is None or change.absolute is None:
        return Cell(text)
    return Cell("%s %s" % (text, format_change(change)), change.tone)


def metric_cell(stat, change=None):
    return with_change(format_stat(stat), change)


STATUS_TONE = {"complete": None, "partial": "bad", "failed": "bad", "incomplete": "bad",
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
        row += [metric_cell(result.stat(metric), change(metric)) for metric in METRICS[1:]]
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
# Tables with a column per host (where the time went, what differs between hosts): at most this many hosts each
# (a lab's host names are often 25 characters, that do not wrap).
HOSTS_PER_TABLE = 4


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


def comparison_row(where, scheduler, metric, before, now, change):
    verdict = change.verdict
    return [Cell(where), Cell(scheduler), Cell(metric.key), Cell(format_stat(before)), Cell(format_stat(now)),
            Cell(format_change(change) if change.absolute is not None else NOT_AVAILABLE),
            Cell(verdict.verdict if verdict.reason is None else verdict.describe(), verdict.tone),
            Cell(format_p(verdict.p) if verdict.p is not None else NOT_AVAILABLE), Cell(verdict.test or NOT_AVAILABLE)]


def host_stat(run, host, scheduler, metric):
    result = run.result(host, scheduler)
    return result.stat(metric) if result is not None and result.has_numbers else Stat(None, None, None, 0)


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


def busy_lines(run, host):
    """One line per scheduler of the host measured on a busy host: how busy."""
    return ["%s: %s" % (scheduler, describe_repeats(result.host_load))
            for scheduler, result in run.hosts[host].schedulers.items() if result.busy_host]


def flatten(document, prefix=""):
    """{'a.b': leaf} for the nested dict; lists and empty dicts become JSON text."""
    flat = {}
    for key, value in document.items():
        name = prefix + str(key)
        if isinstance(value, dict) and value:
            flat.update(flatten(value, name + "."))
        elif isinstance(value, (dict, list)):
            flat[name] = json.dumps(value, sort_keys=True)
        elif isinstance(value, bool):
            flat[name] = "true" if value else "false"
        elif value is None or value == "":
            flat[name] = "(empty)"
        else:
            flat[name] = str(value)
    return flat


# What in env.json describes the host and the run's knobs; the rest (run id, scheduler, outcome) is per scheduler.
ENV_SECTIONS = ("runtime", "system", "versions", "workload", "knobs")


def environment(env):
    sections = {section: env[section] for section in ENV_SECTIONS if section in (env or {})}
    if isinstance(sections.get("versions"), dict):
        # The deployed scheduler's record belongs to one scheduler, not the host; the host table shows its version.
        sections["versions"] = {key: value for key, value in sections["versions"].items() if key != "scheduler"}
    return flatten(sections)


def environment_tables(run):
    """(differing, same, without): hosts' environments side by side, and the hosts that recorded none."""
    hosts = [host for host in run.hosts if run.hosts[host].env]
    envs = {host: environment(run.hosts[host].env) for host in hosts}
    fields = []
    for host in hosts:
        fields += [name for name in envs[host] if name not in fields]
    differing = Table(["Field"] + hosts, [])
    same = Table(["Field", "Value on every host"], [])
    for name in fields:
        values = [envs[host].get(name) for host in hosts]
        if len(set(values)) > 1:
            differing.rows.append([Cell(name)] + [Cell(NOT_AVAILABLE if value is None else value, "bad")
                                                  for value in values])
        else:
            same.rows.append([Cell(name), Cell(values[0])])
    return differing, same, [host for host in run.hosts if host not in envs]


CALIBRATION_HEADERS = ["Host", "API create ceiling (Jobs/s)", "API spread (%)", "Ceiling (pods/s)",
                       "Binding ceiling (pods/s)", "CPU probe (passes/s)", "CPU spread (%)", "Python",
                       "Probe time (s), API / CPU", "Measured"]
CALIBRATION_NOTE = (
    "Measured once per host, on its first fresh cluster before any scheduler (bench_calibrate), or reused from an "
    "earlier run of the same host, versions and load generator for bench_calibration_max_age hours (Measured says "
    "which run measured it and when): each probe's median "
    "over its rounds, their min–max in parentheses, and the spread, (max − min) / median. The API create ceiling "
    "is how many suspended Jobs a second the load generator (its concurrency and client rate limit) created on the "
    "cluster, with nothing else running on it; in pods/s, times the pods per job. The CPU probe is passes of a fixed "
    "Python loop a second on one core; the Python version counts too. Share of host ceiling, in the tables above, is "
    "a scheduler's mean throughput divided by its host's ceiling in pods/s. The binding ceiling is how many pods a "
    "second the load generator bound (pods/binding of pods that exist) with nothing else running, the bindings this "
    "host takes; share of binding ceiling divides by it.")


def probe_stat(probe, figure, rounds):
    """The Stat of a probe's figure ({median, min, max}) over its rounds, as env.json records them."""
    return Stat(number_at(probe, (figure, "median")), number_at(probe, (figure, "min")),
                number_at(probe, (figure, "max")), len(probe.get(rounds) or []))


def calibration_row(host, calibration):
    if calibration is None:
        return [Cell(host)] + [Cell(NOT_AVAILABLE) for _ in CALIBRATION_HEADERS[1:]]
    api, cpu = calibration.get("api_create") or {}, calibration.get("cpu") or {}
    return [Cell(host), Cell(format_stat(probe_stat(api, "jobs_per_s", "rounds_jobs_per_s"))),
            Cell(format_number(number_at(api, ("jobs_per_s", "spread_pct")))),
            Cell(format_number(number_at(api, ("ceiling_pods_per_s",)))),
            Cell(format_stat(probe_stat(calibration.get("api_binding") or {}, "pods_per_s", "rounds_pods_per_s"))),
            Cell(format_stat(probe_stat(cpu, "passes_per_s", "rounds_passes_per_s"))),
            Cell(format_number(number_at(cpu, ("passes_per_s", "spread_pct")))),
            Cell(str(cpu.get("python") or NOT_AVAILABLE)),
            Cell("%s / %s" % (format_number(number_at(api, ("duration_s",))),
                              format_number(number_at(cpu, ("duration_s",))))),
            Cell(measured_cell(calibration))]


def measured_cell(calibration):
    """When and by which run a host's calibration was measured: this run, or an earlier one it reused."""
    if not calibration.get("measured_at"):
        return NOT_AVAILABLE
    if not calibration.get("reused"):
        return "this run, %s" % calibration["measured_at"]
    return "reused: run %s, %s (%s h before)" % (calibration.get("measured_by_run") or NOT_AVAILABLE,
                                                 calibration["measured_at"], format_number(calibration.get("age_h")))


def calibration_table(run):
    """Each host's two probes, or None when no host measured them."""
    if not any(host.calibration for host in run.hosts.values()):
        return None
    return Table(list(CALIBRATION_HEADERS), [calibration_row(name, host.calibration)
                                             for name, host in run.hosts.items()])


PHASES_NOTE = (
    "Each task's wall time on each host, in the phase it belongs to (module_utils/bench_phase_clock.py has "
    "the rules), with its share of the wall time. A report written during the run sees phases.json as it "
    "was when the report began; the table printed at the end of the run, and phases.json after it, "
    "also hold the report and the tasks after it.")


def phases_table(run):
    """The run's "where the time went" table from phases.json, or None without one."""
    if not run.phases:
        return None
    headers, rows = phase_table_rows(run.phases)
    return Table(headers, [[Cell(text) for text in row] for row in rows])


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


# ---------------------------------------------------------------------------
# Chart data
# ---------------------------------------------------------------------------
def limit_lines(run, host):
    """One line per scheduler of the host: the stage that bounded its throughput, and the evidence."""
    return ["%s: %s (%s)" % (scheduler, result.throughput_limited_by["stage"], result.throughput_limited_by["evidence"])
            for scheduler, result in run.hosts[host].schedulers.items() if result.throughput_limited_by]


def chart_file_names(hosts, prefix="bound-"):
    """A distinct PNG name per host, even when two names only differ in characters a file name cannot hold."""
    names, used = {}, set()
    for host in hosts:
        base = prefix + slug(host)
        name, count = base, 1
        while name in used:
            count += 1
            name = "%s-%d" % (base, count)
        used.add(name)
        names[host] = name + ".png"
    return names


def bound_curve(timeline):
    """(xs, ys) of pods bound over time: a timeline row counts binds up to the end of its second."""
    xs, ys = [0], [0]
    for second, bound_total in timeline:
        xs.append(second + 1)
        ys.append(bound_total)
    return xs, ys


def host_series(run, host, curve):
    """label -> curve(representative sample) for each scheduler of the host that has one."""
    series = {}
    for scheduler, result in run.hosts[host].schedulers.items():
        sample = result.representative()
        points = curve(sample) if sample is not None else None
        if not points:
            continue
        label = scheduler
        if len(result.usable_samples) > 1:
            label += " (repeat %d, median makespan)" % sample.repeat
        if not result.has_numbers:
            label += " (incomplete)"
        series[label] = points
    return series


def bound_chart(run, host, file_name):
    series = host_series(run, host, lambda sample: bound_curve(sample.timeline))
    if not series:
        return None
    return LineChart(file_name, "Pods bound over time on %s" % host, "seconds since the first job was created",
                     "pods bound", series)


def backlog_chart(run, host, file_name):
    """Created but unbound pods at the end of each second: a scheduler that keeps up stays near 0."""
    series = host_series(run, host, lambda sample: (
        [second + 1 for second, _ in sample.backlog], [value for _, value in sample.backlog]) if sample.backlog
        else None)
    if not series:
        return None
    return LineChart(file_name, "Backlog on %s: pods created but not yet bound" % host,
                     "seconds since the first job was created", "pods waiting for a node", series)


def latency_chart(run):
    schedulers = [name for name in run.scheduler_names if fleet_results(run, name)]
    series, ranges = {}, {}
    for key in LATENCY_KEYS:
        label = key.split("_")[1]
        stats = [fleet_stat(run, name, METRIC[key]) for name in schedulers]
        series[label] = [stat.median for stat in stats]
        ranges[label] = [(stat.low, stat.high) if stat.spread else None for stat in stats]
    values = [value for column in series.values() for value in column if value]
    if not values:
        return None
    title = "Scheduling latency per scheduler"
    if len(run.hosts) > 1:
        title += " (median of hosts, bars from min to max)"
    # Queueing schedulers can hold pods for seconds while others bind in milliseconds.
    log_scale = min(values) > 0 and max(values) / min(values) > 100
    return BarChart("latency.png", title, "milliseconds", schedulers, series, ranges, log_scale)


def throughput_chart(run):
    hosts = list(run.hosts)
    metric = METRIC["throughput_pods_per_s"]
    series, ranges = {}, {}
    for scheduler in run.scheduler_names:
        stats = [run.result(host, scheduler).stat(metric) if run.result(host, scheduler).has_numbers
                 else Stat(None, None, None, 0) for host in hosts]
        series[scheduler] = [stat.median for stat in stats]
        ranges[scheduler] = [(stat.low, stat.high) if stat.spread else None for stat in stats]
    if not any(value is not None for column in series.values() for value in column):
        return None
    title = "Mean throughput per host"
    if run.max_repeats > 1:
        title += " (median of repeats, bars from min to max)"
    return BarChart("throughput.png", title, "pods/s", hosts, series, ranges)


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------
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
    failures = failure_lines(run)
    if failures:
        blocks += [Heading(2, "Failures", "failures"), Paragraph("\n".join("- " + line for line in failures))]

    blocks += [Heading(2, "Fleet: each scheduler across hosts", "fleet")] + split_table(fleet_table(run, previous),
                                                                                      TABLE_GROUPS)
    note = capacity_note(run)
    if note:
        blocks.append(Paragraph(note))
    for chart in (latency_chart(run), throughput_chart(run)):
        if chart is not None:
            charts.append(chart)
            blocks.append(Image(CHARTS_DIR + "/" + chart.file_name, chart.title))

    file_names = chart_file_names(run.hosts)
    backlog_names = chart_file_names(run.hosts, "backlog-")
    for host in run.hosts.values():
        heading = "Host %s" % host.name
        if host.failure:
            heading += " (failed at %s)" % (host.failure["task"] or "an unknown task")
        blocks += [Heading(2, heading, "host-" + slug(host.name))] + split_table(host_table(run, host.name, previous),
                                                                                 TABLE_GROUPS)
        busy = busy_lines(run, host.name)
        if busy:
            blocks.append(Paragraph("Measured on a busy host (bench_busy_threshold):\n"
                                    + "\n".join("- " + line for line in busy)))
        limits = limit_lines(run, host.name)
        if limits:
            blocks.append(Paragraph("What bounded the throughput:\n" + "\n".join("- " + line for line in limits)))
        chart = bound_chart(run, host.name, file_names[host.name])
        if chart is None:
            blocks.append(Paragraph("No pods-bound timeline was recorded on this host."))
        else:
            charts.append(chart)
            blocks.append(Image(CHARTS_DIR + "/" + chart.file_name, chart.title))
        chart = backlog_chart(run, host.name, backlog_names[host.name])
        if chart is not None:
            charts.append(chart)
            blocks.append(Image(CHARTS_DIR + "/" + chart.file_name, chart.title))

    scenario, scenario_charts = scenario_blocks(run)
    blocks += scenario
    charts += scenario_charts

    if previous is not None:
        blocks += [Heading(2, "Against run %s" % previous.run_id, "comparison"), comparison_table(run, previous)]

    phases = phases_table(run)
    if phases is not None:
        blocks += [Heading(2, "Where the time went (wall time %.1f s)" % (run.phases.get("wall_s") or 0.0), "phases"),
                   *chunk_columns(phases, HOSTS_PER_TABLE), Paragraph(PHASES_NOTE)]

    differing, same, without = environment_tables(run)
    blocks.append(Heading(2, "Environment", "environment"))
    if without:
        blocks.append(Paragraph("No env.json from: %s." % ", ".join(without)))
    calibration = calibration_table(run)
    if calibration is not None:
        blocks += [Heading(3, "Host calibration"), calibration, Paragraph(CALIBRATION_NOTE)]
    if len(run.hosts) - len(without) > 1:
        blocks.append(Heading(3, "Differs between hosts"))
        blocks += (chunk_columns(differing, HOSTS_PER_TABLE) if differing.rows
                   else [Paragraph("Nothing: every host recorded the same.")])
        blocks.append(Heading(3, "Same on every host"))
    if same.rows:
        blocks.append(same)

    summary = {
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
        "gate": {"checks": len(checks), "passed": sum(1 for check in checks if check.passed),
                 "missed": [check.as_dict() for check in checks if not check.passed],
                 "refused": [refusal.as_dict() for refusal in refused],
                 "verdict": gate_verdict(checks, refused)} if gate else None,
    }
    return Report(title, blocks, charts, csv_fields(previous is not None), csv_rows(run, previous), summary)
