# -*- coding: utf-8 -*-
"""Pure functions behind the benchmark report.

A run directory is read into a small data model (``load_run``), which the
builders turn into a ``Report``: a list of blocks (headings, tables, images)
plus chart data and CSV rows. Renderers turn blocks into Markdown and HTML,
``render_png`` turns chart data into PNG bytes. Only ``load_run`` and its
helpers read files and nothing here writes any: the Ansible module
library/bench_report.py does that. Unit-tested in tests/unit/test_report.py.

The layout read is results/<run_id>/<host>/<scheduler>/{summary.json,
timeline.csv, env.json, ...}, repeat k >= 2 of a scheduler in
<scheduler>/repeat-<k>/, and <host>/failed.json for a host that failed.
"""
from __future__ import annotations

import csv
import html
import io
import json
import math
import os
import re
import statistics
from dataclasses import dataclass, field

CHARTS_DIR = "report-charts"
NOT_AVAILABLE = "n/a"
_REPEAT_DIR = re.compile(r"^repeat-(\d+)$")
# The fetch step renames <scheduler>.partial once every file has arrived.
_PARTIAL_SUFFIX = ".partial"
NO_SUMMARY = "no summary.json"


@dataclass(frozen=True)
class Metric:
    key: str            # column name in report.csv
    label: str          # column title in the tables
    path: tuple         # where the number sits in summary.json
    higher_is_better: bool


METRICS = (
    Metric("pods_bound", "Pods bound", ("pods_bound",), True),
    Metric("makespan_s", "Makespan (s)", ("makespan_s",), False),
    Metric("throughput_pods_per_s", "Mean throughput (pods/s)", ("throughput_pods_per_s",), True),
    Metric("peak_throughput_pods_per_s", "Peak throughput (pods/s)", ("peak_throughput_pods_per_s",), True),
    Metric("latency_p50_ms", "p50 (ms)", ("latency_ms", "p50"), False),
    Metric("latency_p90_ms", "p90 (ms)", ("latency_ms", "p90"), False),
    Metric("latency_p99_ms", "p99 (ms)", ("latency_ms", "p99"), False),
    Metric("latency_max_ms", "max (ms)", ("latency_ms", "max"), False),
    Metric("scheduler_cpu_s", "Scheduler CPU (s)", ("scheduler_cost", "cpu_seconds"), False),
    Metric("scheduler_peak_rss_mb", "Scheduler peak RSS (MB)", ("scheduler_cost", "peak_rss_mb"), False),
)
METRIC = {metric.key: metric for metric in METRICS}
LATENCY_KEYS = ("latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "latency_max_ms")


# ---------------------------------------------------------------------------
# Data model
# ---------------------------------------------------------------------------
def number_at(document, path):
    """The number at ``path`` in nested dicts, or None when absent or not a number."""
    value = document
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


@dataclass
class Stat:
    """Median and range of a set of samples; all None when there is none."""
    median: float | None
    low: float | None
    high: float | None
    count: int

    @property
    def spread(self):
        return self.count > 1 and self.low != self.high


def stat_of(values):
    present = [value for value in values if value is not None]
    if not present:
        return Stat(None, None, None, 0)
    return Stat(float(statistics.median(present)), float(min(present)), float(max(present)), len(present))


@dataclass
class Sample:
    """One repeat of one scheduler on one host."""
    repeat: int
    directory: str
    summary: dict | None = None
    timeline: list = field(default_factory=list)     # [(second, bound_total)]
    env: dict | None = None
    problem: str | None = None

    @property
    def complete(self):
        return self.summary is not None and self.summary.get("complete") is not False

    def value(self, metric):
        return number_at(self.summary, metric.path)


@dataclass
class SchedulerResult:
    host: str
    name: str
    samples: list = field(default_factory=list)
    failure: dict | None = None        # {"task", "msg"} of this scheduler
    host_failure: dict | None = None   # {"task", "msg"} of the host
    repeats_expected: int = 0

    @property
    def measured(self):
        return [sample for sample in self.samples if sample.summary is not None]

    @property
    def complete_samples(self):
        return [sample for sample in self.samples if sample.complete]

    @property
    def usable_samples(self):
        """The repeats the numbers come from: the complete ones, or else whatever was measured."""
        return self.complete_samples or self.measured

    @property
    def repeats(self):
        return max(len(self.samples), self.repeats_expected)

    def stat(self, metric):
        return stat_of(sample.value(metric) for sample in self.usable_samples)

    @property
    def pods_expected(self):
        return stat_of(number_at(sample.summary, ("pods_expected",)) for sample in self.usable_samples).high

    @property
    def timing_source(self):
        sources = []
        for sample in self.usable_samples:
            source = sample.summary.get("timing_source")
            if source and source not in sources:
                sources.append(str(source))
        return ", ".join(sources) or None

    @property
    def status(self):
        """One of complete, partial, failed, incomplete, unreadable, not run."""
        if self.failure:
            return "failed"
        complete = len(self.complete_samples)
        if complete and complete >= self.repeats:
            return "complete"
        if complete:
            return "partial"
        if self.measured:
            return "incomplete"
        if any(sample.problem != NO_SUMMARY for sample in self.samples):
            return "unreadable"
        return "not run"

    @property
    def reason(self):
        status = self.status
        if status == "failed":
            return describe_failure(self.failure)
        if status == "complete":
            return None
        if status == "not run":
            if self.host_failure:
                return "host failed at " + describe_failure(self.host_failure)
            return NO_SUMMARY if self.samples else "no results"
        if status == "unreadable":
            return "; ".join(sample.problem for sample in self.samples if sample.problem != NO_SUMMARY)
        problems = [self._sample_problem(sample) for sample in self.samples if not sample.complete]
        missing = self.repeats - len(self.samples)
        if missing > 0:
            problems.append("%d repeat%s missing" % (missing, "" if missing == 1 else "s"))
        return "; ".join(problem for problem in problems if problem)

    def _sample_problem(self, sample):
        if sample.summary is None:
            why = sample.problem or "no summary"
        else:
            why = sample.summary.get("reason") or "marked incomplete"
        return ("repeat %d: %s" % (sample.repeat, why)) if self.repeats > 1 else str(why)

    @property
    def has_numbers(self):
        return bool(self.complete_samples)

    @property
    def version(self):
        """The deployed scheduler's version, as env.json records it."""
        for sample in self.samples:
            deployed = ((sample.env or {}).get("versions") or {}).get("scheduler")
            if isinstance(deployed, dict) and deployed.get("version"):
                return str(deployed["version"])
        return None

    def representative(self):
        """The usable repeat with the median makespan, to draw as this scheduler's curve."""
        candidates = [sample for sample in self.usable_samples if sample.timeline]
        if not candidates:
            return None
        makespan = METRIC["makespan_s"]
        ranked = sorted(candidates, key=lambda sample: (
            sample.value(makespan) is None, sample.value(makespan) or 0.0, sample.repeat))
        return ranked[(len(ranked) - 1) // 2]


def describe_failure(failure):
    task = failure.get("task") or "an unknown task"
    message = failure.get("msg") or "no message"
    return "%s: %s" % (task, message)


@dataclass
class HostResult:
    name: str
    schedulers: dict = field(default_factory=dict)   # name -> SchedulerResult
    failure: dict | None = None                      # failed.json

    @property
    def env(self):
        """The host's env.json: the same for every scheduler apart from the scheduler's own fields."""
        for result in self.schedulers.values():
            for sample in result.samples:
                if sample.env:
                    return sample.env
        return None


@dataclass
class Run:
    run_id: str
    path: str
    hosts: dict = field(default_factory=dict)        # name -> HostResult

    @property
    def scheduler_names(self):
        names = []
        for host in self.hosts.values():
            for name in host.schedulers:
                if name not in names:
                    names.append(name)
        return names

    def result(self, host, scheduler):
        entry = self.hosts.get(host)
        return entry.schedulers.get(scheduler) if entry else None

    @property
    def failed_hosts(self):
        return [host for host in self.hosts.values() if host.failure]

    @property
    def max_repeats(self):
        return max((result.repeats for host in self.hosts.values() for result in host.schedulers.values()),
                   default=0)


# ---------------------------------------------------------------------------
# Loading a run directory (reads only)
# ---------------------------------------------------------------------------
def read_json_file(path):
    """(document, problem): the parsed JSON object, or None and why not."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            document = json.load(handle)
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError) as exc:
        return None, "%s is unreadable: %s" % (os.path.basename(path), exc)
    if not isinstance(document, dict):
        return None, "%s is not a JSON object" % os.path.basename(path)
    return document, None


def parse_timeline(text):
    """[(second, bound_total)] from timeline.csv text; rows that do not parse are skipped."""
    points = []
    for row in csv.DictReader(io.StringIO(text)):
        try:
            points.append((int(row["second"]), int(row["bound_total"])))
        except (KeyError, TypeError, ValueError):
            continue
    return sorted(points)


def load_sample(directory, repeat):
    summary, problem = read_json_file(os.path.join(directory, "summary.json"))
    env, env_problem = read_json_file(os.path.join(directory, "env.json"))
    if summary is None and problem is None:
        problem = NO_SUMMARY
    timeline = []
    try:
        with open(os.path.join(directory, "timeline.csv"), "r", encoding="utf-8") as handle:
            timeline = parse_timeline(handle.read())
    except OSError:
        pass
    return Sample(repeat, directory, summary, timeline, env, problem or env_problem)


def repeat_dirs(directory):
    """[(repeat number, directory)]: the scheduler's directory is repeat 1, repeat-<k>/ are the others."""
    found = []
    for name in sorted(os.listdir(directory)):
        match = _REPEAT_DIR.match(name)
        if match and os.path.isdir(os.path.join(directory, name)) and int(match.group(1)) > 1:
            found.append((int(match.group(1)), os.path.join(directory, name)))
    return [(1, directory)] + sorted(found)


def failure_entry(value):
    if not isinstance(value, dict):
        return None
    if not (value.get("task") or value.get("msg")):
        return None
    # Messages can span lines (a command's output); tables and headings need one line.
    return {"task": " ".join(str(value.get("task") or "").split()),
            "msg": " ".join(str(value.get("msg") or "").split())}


def expected_repeats(samples):
    """bench_repeats as env.json records it, if it does."""
    for sample in samples:
        for section in ("workload", "knobs"):
            value = number_at(sample.env, (section, "repeats"))
            if value:
                return int(value)
    return 0


def load_scheduler(host, name, directory, failures, host_failure):
    samples = [load_sample(path, repeat) for repeat, path in repeat_dirs(directory)]
    failure = failure_entry(failures.get(name))
    if failure is None:
        for sample in samples:
            failure = failure_entry((sample.env or {}).get("outcome"))
            if failure:
                break
    return SchedulerResult(host, name, samples, failure, host_failure, expected_repeats(samples))


def load_host(name, directory):
    host_failure_doc, problem = read_json_file(os.path.join(directory, "failed.json"))
    host_failure = failure_entry(host_failure_doc)
    if problem:
        host_failure = {"task": "unknown", "msg": problem}
    failures = (host_failure_doc or {}).get("schedulers") or {}
    if not isinstance(failures, dict):
        failures = {}
    host = HostResult(name, failure=host_failure)
    for entry in sorted(os.listdir(directory)):
        path = os.path.join(directory, entry)
        if entry.startswith(".") or entry.endswith(_PARTIAL_SUFFIX) or not os.path.isdir(path):
            continue
        host.schedulers[entry] = load_scheduler(name, entry, path, failures, host_failure)
    for scheduler, failure in failures.items():
        if scheduler not in host.schedulers and failure_entry(failure):
            host.schedulers[scheduler] = SchedulerResult(name, scheduler, [], failure_entry(failure), host_failure)
    return host


def is_host_dir(path):
    if os.path.isfile(os.path.join(path, "failed.json")):
        return True
    return any(os.path.isdir(os.path.join(path, entry)) for entry in os.listdir(path))


def load_run(run_dir):
    """Read results/<run_id>/ into a Run. Raises ValueError when it holds no results at all."""
    run_dir = os.path.abspath(run_dir)
    if not os.path.isdir(run_dir):
        raise ValueError("run directory %s does not exist" % run_dir)
    run = Run(os.path.basename(run_dir.rstrip(os.sep)), run_dir)
    for entry in sorted(os.listdir(run_dir)):
        path = os.path.join(run_dir, entry)
        if entry.startswith(".") or entry == CHARTS_DIR or not os.path.isdir(path) or not is_host_dir(path):
            continue
        run.hosts[entry] = load_host(entry, path)
    add_schedulers_not_run(run)
    if not any(host.failure or any(result.samples for result in host.schedulers.values())
               for host in run.hosts.values()):
        raise ValueError("%s holds no benchmark results: expected %s/<host>/<scheduler>/summary.json"
                         % (run_dir, run_dir))
    return run


def add_schedulers_not_run(run):
    """Give every host an entry for every scheduler of the run, so a missing one shows up as not run."""
    for scheduler in run.scheduler_names:
        for host in run.hosts.values():
            if scheduler not in host.schedulers:
                host.schedulers[scheduler] = SchedulerResult(host.name, scheduler, host_failure=host.failure)


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
        if not self.absolute:
            return None
        return "better" if (self.absolute > 0) == self.higher_is_better else "worse"


def host_change(run, previous, host, scheduler, metric):
    before = previous.result(host, scheduler) if previous else None
    now = run.result(host, scheduler)
    return Change(before.stat(metric).median if before and before.has_numbers else None,
                  now.stat(metric).median if now and now.has_numbers else None,
                  metric.higher_is_better)


def fleet_change(run, previous, scheduler, metric):
    return Change(fleet_stat(previous, scheduler, metric).median, fleet_stat(run, scheduler, metric).median,
                  metric.higher_is_better)


# ---------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------
def format_number(value):
    """Four significant digits, no exponent; n/a for None."""
    if value is None:
        return NOT_AVAILABLE
    if abs(value) >= 1000 or float(value).is_integer():
        return "%.0f" % value
    return "%.4g" % value


def format_stat(stat):
    """'median' or 'median (min–max)' when repeats differ."""
    if stat.median is None:
        return NOT_AVAILABLE
    text = format_number(stat.median)
    if stat.spread:
        text += " (%s–%s)" % (format_number(stat.low), format_number(stat.high))
    return text


def format_change(change):
    if change.percent is not None:
        return "Δ %+.1f%%" % change.percent
    return "Δ %+g" % change.absolute


# ---------------------------------------------------------------------------
# Document blocks, rendered to Markdown and HTML alike
# ---------------------------------------------------------------------------
@dataclass
class Cell:
    text: str
    tone: str | None = None     # better, worse, bad: only colours the HTML


@dataclass
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass
class Paragraph:
    text: str


@dataclass
class Table:
    headers: list
    rows: list                  # lists of Cell


@dataclass
class Image:
    path: str                   # relative to the report
    alt: str


@dataclass
class LineChart:
    file_name: str
    title: str
    xlabel: str
    ylabel: str
    series: dict                # label -> (xs, ys)


@dataclass
class BarChart:
    file_name: str
    title: str
    ylabel: str
    categories: list
    series: dict                # label -> [value or None per category]
    ranges: dict                # label -> [(low, high) or None per category]
    log_scale: bool = False


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
    return Cell(text, STATUS_TONE[result.status])


def pods_cell(result, change=None):
    stat = result.stat(METRIC["pods_bound"])
    text = format_stat(stat)
    if stat.median is not None and result.pods_expected is not None:
        text += " / " + format_number(result.pods_expected)
    return with_change(text, change)


HOST_TABLE_HEADERS = ["Scheduler", "Pods bound / expected"] + [metric.label for metric in METRICS[1:]] + [
    "Timing source", "Status"]


def host_table(run, host, previous=None):
    rows = []
    for scheduler, result in run.hosts[host].schedulers.items():
        def change(metric):
            return host_change(run, previous, host, scheduler, metric) if previous else None
        name = "%s (%s)" % (scheduler, result.version) if result.version else scheduler
        row = [Cell(name), pods_cell(result, change(METRIC["pods_bound"]))]
        row += [metric_cell(result.stat(metric), change(metric)) for metric in METRICS[1:]]
        row += [Cell(result.timing_source or NOT_AVAILABLE), status_cell(result)]
        rows.append(row)
    return Table(list(HOST_TABLE_HEADERS), rows)


FLEET_TABLE_HEADERS = ["Scheduler", "Hosts with results"] + [metric.label for metric in METRICS]


def fleet_table(run, previous=None):
    rows = []
    for scheduler in run.scheduler_names:
        counted = len(fleet_results(run, scheduler))
        row = [Cell(scheduler), Cell("%d of %d" % (counted, len(run.hosts)), None if counted == len(run.hosts)
                                     else "bad")]
        for metric in METRICS:
            change = fleet_change(run, previous, scheduler, metric) if previous else None
            row.append(metric_cell(fleet_stat(run, scheduler, metric), change))
        rows.append(row)
    return Table(list(FLEET_TABLE_HEADERS), rows)


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
def slug(text):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text) or "_"


def chart_file_names(hosts):
    """A distinct PNG name per host, even when two names only differ in characters a file name cannot hold."""
    names, used = {}, set()
    for host in hosts:
        base = "bound-" + slug(host)
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


def bound_chart(run, host, file_name):
    series = {}
    for scheduler, result in run.hosts[host].schedulers.items():
        sample = result.representative()
        if sample is None:
            continue
        label = scheduler
        if len(result.usable_samples) > 1:
            label += " (repeat %d, median makespan)" % sample.repeat
        if not result.has_numbers:
            label += " (incomplete)"
        series[label] = bound_curve(sample.timeline)
    if not series:
        return None
    return LineChart(file_name, "Pods bound over time on %s" % host, "seconds since the first job was created",
                     "pods bound", series)


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
              "pods_expected"]
    for metric in METRICS:
        fields += [metric.key, metric.key + "_min", metric.key + "_max"]
        if compared:
            fields += [metric.key + "_previous", metric.key + "_change_pct"]
    return fields + ["kernel", "distribution", "cpus", "memory_mb"]


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
            }
            for metric in METRICS:
                stat = result.stat(metric)
                row[metric.key] = csv_value(stat.median)
                row[metric.key + "_min"] = csv_value(stat.low)
                row[metric.key + "_max"] = csv_value(stat.high)
                if previous is not None:
                    change = host_change(run, previous, host.name, scheduler, metric)
                    row[metric.key + "_previous"] = csv_value(change.previous)
                    row[metric.key + "_change_pct"] = csv_value(
                        round(change.percent, 3) if change.percent is not None else None)
            rows.append(row)
    return rows


def overview(run, previous):
    failed = run.failed_hosts
    text = "%d host%s (%s), schedulers: %s." % (
        len(run.hosts), "" if len(run.hosts) == 1 else "s",
        "%d failed" % len(failed) if failed else "none failed", ", ".join(run.scheduler_names) or "none")
    if run.max_repeats > 1:
        text += (" Each scheduler ran up to %d times per host: a cell shows the median over the complete repeats "
                 "and, when they differ, their min–max." % run.max_repeats)
    if len(run.hosts) > 1:
        text += " The fleet table shows, per scheduler, the median of the hosts' numbers and their min–max."
    if previous is not None:
        text += (" Δ is the change against run %s (same host and scheduler; for the fleet, its median); "
                 "numbers without Δ have no counterpart there." % previous.run_id)
    return text


def build_report(run, previous=None):
    """Everything the report shows, as data; nothing is written."""
    title = "Scheduler benchmark, run %s" % run.run_id
    blocks = [Heading(1, title), Paragraph(overview(run, previous))]
    charts = []
    failures = failure_lines(run)
    if failures:
        blocks += [Heading(2, "Failures", "failures"), Paragraph("\n".join("- " + line for line in failures))]

    blocks += [Heading(2, "Fleet: each scheduler across hosts", "fleet"), fleet_table(run, previous)]
    for chart in (latency_chart(run), throughput_chart(run)):
        if chart is not None:
            charts.append(chart)
            blocks.append(Image(CHARTS_DIR + "/" + chart.file_name, chart.title))

    file_names = chart_file_names(run.hosts)
    for host in run.hosts.values():
        heading = "Host %s" % host.name
        if host.failure:
            heading += " (failed at %s)" % (host.failure["task"] or "an unknown task")
        blocks += [Heading(2, heading, "host-" + slug(host.name)), host_table(run, host.name, previous)]
        chart = bound_chart(run, host.name, file_names[host.name])
        if chart is None:
            blocks.append(Paragraph("No pods-bound timeline was recorded on this host."))
        else:
            charts.append(chart)
            blocks.append(Image(CHARTS_DIR + "/" + chart.file_name, chart.title))

    differing, same, without = environment_tables(run)
    blocks.append(Heading(2, "Environment", "environment"))
    if without:
        blocks.append(Paragraph("No env.json from: %s." % ", ".join(without)))
    if len(run.hosts) - len(without) > 1:
        blocks.append(Heading(3, "Differs between hosts"))
        blocks.append(differing if differing.rows else Paragraph("Nothing: every host recorded the same."))
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
    }
    return Report(title, blocks, charts, csv_fields(previous is not None), csv_rows(run, previous), summary)


# ---------------------------------------------------------------------------
# Renderers: text in, text out
# ---------------------------------------------------------------------------
def markdown_cell(text):
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def render_markdown(report):
    out = []
    for block in report.blocks:
        if isinstance(block, Heading):
            out.append("%s %s" % ("#" * block.level, block.text))
        elif isinstance(block, Paragraph):
            out.append(block.text)
        elif isinstance(block, Table):
            lines = ["| " + " | ".join(markdown_cell(header) for header in block.headers) + " |",
                     "|" + "|".join("---" for _ in block.headers) + "|"]
            lines += ["| " + " | ".join(markdown_cell(cell.text) for cell in row) + " |" for row in block.rows]
            out.append("\n".join(lines))
        elif isinstance(block, Image):
            out.append("![%s](%s)" % (block.alt, block.path))
    return "\n\n".join(out) + "\n"


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.better { color: #1a7f37; }
td.worse { color: #cf222e; }
td.bad { background: #ffebe9; }
img { max-width: 100%; display: block; margin: 1em 0; }
"""


def render_html(report):
    escape = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           "<title>%s</title>" % escape(report.title), "<style>%s</style>" % _STYLE, "</head>", "<body>"]
    for block in report.blocks:
        if isinstance(block, Heading):
            anchor = ' id="%s"' % escape(block.anchor) if block.anchor else ""
            out.append("<h%d%s>%s</h%d>" % (block.level, anchor, escape(block.text), block.level))
        elif isinstance(block, Paragraph):
            lines = block.text.split("\n")
            if all(line.startswith("- ") for line in lines):
                out.append("<ul>%s</ul>" % "".join("<li>%s</li>" % escape(line[2:]) for line in lines))
            else:
                out.append("<p>%s</p>" % escape(block.text))
        elif isinstance(block, Table):
            out.append("<table>")
            out.append("<tr>%s</tr>" % "".join("<th>%s</th>" % escape(header) for header in block.headers))
            for row in block.rows:
                out.append("<tr>%s</tr>" % "".join(
                    "<td%s>%s</td>" % (' class="%s"' % cell.tone if cell.tone else "", escape(cell.text))
                    for cell in row))
            out.append("</table>")
        elif isinstance(block, Image):
            out.append('<img src="%s" alt="%s">' % (escape(block.path), escape(block.alt)))
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def render_csv(report):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=report.csv_fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(report.csv_rows)
    return buffer.getvalue()


def render_png(chart):
    """PNG bytes of a chart. Imports matplotlib here so that the rest works without it."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 4.5), dpi=100)
    axes = figure.subplots()
    if isinstance(chart, LineChart):
        draw_lines(axes, chart)
    else:
        draw_bars(axes, chart)
    axes.set_title(chart.title)
    axes.grid(True, alpha=0.3)
    figure.tight_layout()
    buffer = io.BytesIO()
    # No timestamp in the PNG, so the same results give the same bytes.
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def draw_lines(axes, chart):
    for label, (xs, ys) in chart.series.items():
        axes.plot(xs, ys, marker="." if len(xs) < 30 else None, label=label)
    axes.set_xlabel(chart.xlabel)
    axes.set_ylabel(chart.ylabel)
    axes.set_xlim(left=0)
    axes.set_ylim(bottom=0)
    axes.legend(loc="lower right")


def draw_bars(axes, chart):
    count = max(len(chart.series), 1)
    width = 0.8 / count
    positions = range(len(chart.categories))
    for index, (label, values) in enumerate(chart.series.items()):
        xs = [position - 0.4 + width * (index + 0.5) for position in positions]
        heights = [math.nan if value is None else value for value in values]
        axes.bar(xs, heights, width, label=label)
        ranged = [(x, value, span) for x, value, span in zip(xs, values, chart.ranges.get(label) or [])
                  if value is not None and span is not None]
        if ranged:
            axes.errorbar([x for x, _, _ in ranged], [value for _, value, _ in ranged],
                          yerr=[[value - span[0] for _, value, span in ranged],
                                [span[1] - value for _, value, span in ranged]],
                          fmt="none", ecolor="black", capsize=3)
    axes.set_xticks(list(positions))
    axes.set_xlim(-0.5, len(chart.categories) - 0.5)
    axes.set_xticklabels([category if any(values[index] is not None for values in chart.series.values())
                          else category + "\n(no results)" for index, category in enumerate(chart.categories)])
    axes.set_ylabel(chart.ylabel)
    if chart.log_scale:
        axes.set_yscale("log")
    axes.legend()
