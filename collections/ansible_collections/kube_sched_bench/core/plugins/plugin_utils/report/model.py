# -*- coding: utf-8 -*-
"""The report's data model: a run's hosts, their schedulers and each scheduler's repeats, as run.load_run reads
them; the figures the report shows (METRICS) and their statistics over repeats (Stat). No I/O here."""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.host_load import over_repeats
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.stats import MIN_SAMPLES_FOR_INTERVAL, bootstrap_interval
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result.schema import SCHEMA_VERSION, schema_version

NOT_AVAILABLE = "n/a"
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
    # The shortest makespan the scheduler's capacity allows divided by its makespan (module_utils/cluster/capacity.py).
    Metric("efficiency", "Efficiency (bound / makespan)", ("efficiency",), True),
    Metric("throughput_pods_per_s", "Mean throughput (pods/s)", ("throughput_pods_per_s",), True),
    # Mean throughput divided by the host's API create ceiling in pods/s (module_utils/loadtest/calibration.py).
    Metric("share_of_host_ceiling", "Share of host ceiling", ("share_of_host_ceiling",), True),
    # Mean throughput divided by the host's API binding ceiling in pods/s: the bindings this host takes.
    Metric("share_of_binding_ceiling", "Share of binding ceiling", ("share_of_binding_ceiling",), True),
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
    """Median and range of a set of samples, and with ``interval`` the median's bootstrap interval; all None
    when there is none."""
    median: float | None
    low: float | None
    high: float | None
    count: int
    ci_low: float | None = None
    ci_high: float | None = None

    @property
    def spread(self):
        return self.count > 1 and self.low != self.high


def stat_of(values, interval=False):
    """The Stat of ``values``; with ``interval`` and enough of them, also the median's 95 % interval."""
    present = [value for value in values if value is not None]
    if not present:
        return Stat(None, None, None, 0)
    stat = Stat(float(statistics.median(present)), float(min(present)), float(max(present)), len(present))
    if interval and len(present) >= MIN_SAMPLES_FOR_INTERVAL:
        stat.ci_low, stat.ci_high = bootstrap_interval(present)
    return stat


@dataclass
class Sample:
    """One repeat of one scheduler on one host."""
    repeat: int
    directory: str
    summary: dict | None = None
    timeline: list = field(default_factory=list)     # [(second, bound_total)]
    env: dict | None = None
    problem: str | None = None
    backlog: list = field(default_factory=list)      # [(second, created but unbound pods)]
    # A scenario's run only (summary.json has scenario_metrics): jobs.csv's rows and pods.csv's latencies.
    jobs: list = field(default_factory=list)         # [{"job", "tenant", "gang", "<stage>_ms", ...}]
    pod_latency_ms: list = field(default_factory=list)
    # profiles.json, with bench_scheduler_cpu_profile_seconds: "<component>-<cpu|heap>" -> go tool pprof's top functions.
    profiles: dict | None = None
    # summary.json was written by a newer toolkit (its schema_version): read as nothing, listed as such.
    newer: bool = False

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
    # stat() per metric key: the report asks for each figure in several tables and the CSV,
    # and its bootstrap is the costly part.
    _stats: dict = field(default_factory=dict, repr=False, compare=False)

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
        """Over the repeats: median, min-max and, with three or more, the median's interval."""
        if metric.key not in self._stats:
            self._stats[metric.key] = stat_of(self.values(metric), interval=True)
        return self._stats[metric.key]

    def values(self, metric):
        """The figure of each repeat the numbers come from."""
        return [sample.value(metric) for sample in self.usable_samples]

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
        """One of complete, partial, failed, incomplete, newer, unreadable, not run."""
        if self.failure:
            return "failed"
        complete = len(self.complete_samples)
        if complete and complete >= self.repeats:
            return "complete"
        if complete:
            return "partial"
        if self.measured:
            return "incomplete"
        if any(sample.newer for sample in self.samples):
            return "newer"
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
        if status in ("newer", "unreadable"):
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
    def older_schema(self):
        """The schema_version of the oldest summary.json the numbers come from, when it is older than this toolkit's
        (its figures that came later are missing and say so); None when every one is current."""
        versions = [schema_version(sample.summary) for sample in self.usable_samples]
        oldest = min(versions, default=SCHEMA_VERSION)
        return oldest if oldest < SCHEMA_VERSION else None

    def missing_text(self):
        """What a figure this result lacks shows: n/a, with the schema version an older toolkit wrote it with."""
        older = self.older_schema
        return NOT_AVAILABLE if older is None else "%s (schema %d)" % (NOT_AVAILABLE, older)

    @property
    def version(self):
        """The deployed scheduler's version, as env.json records it."""
        for sample in self.samples:
            deployed = ((sample.env or {}).get("versions") or {}).get("scheduler")
            if isinstance(deployed, dict) and deployed.get("version"):
                return str(deployed["version"])
        return None

    @property
    def capacity(self):
        """What the scheduler could use and the makespan bound that gives, as its summary records them (or None)."""
        for sample in self.usable_samples:
            capacity = sample.summary.get("capacity")
            if isinstance(capacity, dict):
                return {"capacity": capacity, "bound": sample.summary.get("makespan_bound") or {}}
        return None

    @property
    def throughput_limited_by(self):
        """The representative repeat's throughput_limited_by ({"stage", "evidence", ...}), or None."""
        sample = self.representative()
        stage = (sample.summary or {}).get("throughput_limited_by") if sample else None
        return stage if isinstance(stage, dict) and stage.get("stage") else None

    @property
    def host_load(self):
        """How busy the host was over the repeats the numbers come from (sched_host_load.over_repeats), or None."""
        return over_repeats([(sample.summary or {}).get("host_load") for sample in self.usable_samples])

    @property
    def busy_host(self):
        """True when a repeat the numbers come from was measured on a busy host."""
        load = self.host_load
        return bool(load and load["busy_repeats"])

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

    @property
    def calibration(self):
        """The host's calibration probes as env.json records them ({"api_create", "cpu"}), or None."""
        calibration = (self.env or {}).get("calibration")
        return calibration if isinstance(calibration, dict) else None


@dataclass
class Run:
    run_id: str
    path: str
    hosts: dict = field(default_factory=dict)        # name -> HostResult
    phases: dict | None = None                       # phases.json (bench_phase_clock.summarize), if written

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

