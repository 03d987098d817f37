# -*- coding: utf-8 -*-
"""The regression gate: ``bench_gate`` parsed by one function for the input check and the report alike
(``parse_gate``), and checked against a run (``evaluate``). No I/O.

The gate maps a scheduler, or "*" for every scheduler of the run, to {figure: threshold or list of
thresholds}; a scheduler's own entry for a figure replaces the one of "*". Figures are the keys of
sched_report_run.METRICS. A threshold is one of:

  ">= N" / "<= N"                 the figure's median over the repeats, on every host
  "worse_by <= N%"                against the same host and scheduler in the earlier run (compare_to):
                                  the median got worse by at most N % of the earlier median
  "worse_by <= N% significant"    the same, but a larger worsening only misses when the Mann-Whitney U
                                  test over the repeats also finds it significant (sched_stats.compare)

A check that cannot be made (no value, no earlier value, no verdict possible) is a miss.

With ``busy="refuse"`` (bench_gate_busy), a result measured on a busy host (summary.json's host_load.busy, in any
of the repeats its numbers come from; for a relative threshold, the earlier run's too) is not judged: it gets a
Refusal, one line saying how busy the host was, and no check.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.table import BY_NAME
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.host_load import describe_repeats
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.stats import NO_VERDICT, WORSE, compare
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers.knob_checks import SCHEDULERS
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import METRIC, METRICS

ANY = "*"
# bench_gate_busy: judge a result measured on a busy host as any other, or refuse to.
JUDGE, REFUSE = BUSY_CHOICES = BY_NAME["gate_busy"].rule
ALLOWED = "use '>= N', '<= N' or 'worse_by <= N%' (optionally followed by ' significant')"
EXAMPLE = '{"*": {"latency_p99_ms": "<= 800"}, "default": {"throughput_pods_per_s": ">= 20"}}'
_NUMBER = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_ABSOLUTE = re.compile(r"^(>=|<=)\s*(%s)$" % _NUMBER)
_RELATIVE = re.compile(r"^worse_by\s*<=\s*(%s)\s*%%(\s+significant)?$" % _NUMBER)


@dataclass(frozen=True)
class Threshold:
    text: str
    relative: bool
    limit: float                    # the number; for a relative threshold, the percentage
    operator: str | None = None     # >= or <= (absolute)
    significant: bool = False       # relative: only a significant worsening misses


def parse_threshold(text):
    """The Threshold of ``text``; ValueError when it is none of the allowed shapes."""
    if not isinstance(text, str):
        raise ValueError(ALLOWED)
    text = " ".join(text.split())
    match = _ABSOLUTE.match(text)
    if match:
        return Threshold(text, False, float(match.group(2)), match.group(1))
    match = _RELATIVE.match(text)
    if match and float(match.group(1)) >= 0:
        return Threshold(text, True, float(match.group(1)), significant=bool(match.group(2)))
    raise ValueError(ALLOWED)


@dataclass(frozen=True)
class Gate:
    rules: dict     # scheduler or "*" -> {figure: (Threshold, ...)}

    def __bool__(self):
        return bool(self.rules)

    @property
    def thresholds_all(self):
        return [threshold for figures in self.rules.values() for thresholds in figures.values()
                for threshold in thresholds]

    @property
    def relative(self):
        return any(threshold.relative for threshold in self.thresholds_all)

    @property
    def significant(self):
        return any(threshold.significant for threshold in self.thresholds_all)

    @property
    def named_schedulers(self):
        return [name for name in self.rules if name != ANY]

    def thresholds(self, scheduler):
        """{figure: (Threshold, ...)} for a scheduler, in the order of METRICS."""
        merged = dict(self.rules.get(ANY, {}))
        merged.update(self.rules.get(scheduler, {}))
        return {metric.key: merged[metric.key] for metric in METRICS if metric.key in merged}


def parse_gate(value, name="bench_gate", compared=True, compare_name="bench_report_compare_to"):
    """(Gate, problems): the gate of ``value`` (a mapping, or its JSON text as the command line gives it) and one
    sentence per problem, naming ``name``. ``compared`` says whether there is an earlier run to compare with
    (``compare_name``)."""
    if value in (None, ""):
        return Gate({}), []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            pass
    if not isinstance(value, dict):
        return Gate({}), ["%s=%r is not allowed: use a mapping of scheduler (or \"*\" for every scheduler) to "
                          "{figure: threshold}, such as %s" % (name, value, EXAMPLE)]
    rules, problems = {}, []
    for scheduler, figures in value.items():
        where = "%s.%s" % (name, scheduler)
        if scheduler != ANY and scheduler not in SCHEDULERS:
            problems.append("%s names the scheduler %r, which is not allowed: use \"*\" or one of %s"
                            % (name, scheduler, ", ".join(SCHEDULERS)))
            continue
        if not isinstance(figures, dict) or not figures:
            problems.append("%s=%r is not allowed: use a mapping of figure to threshold, such as "
                            "{latency_p99_ms: \"<= 800\"}" % (where, figures))
            continue
        rules[scheduler] = {}
        for figure, texts in figures.items():
            if figure not in METRIC:
                problems.append("%s names the figure %r, which is not allowed: use one of %s"
                                % (where, figure, ", ".join(metric.key for metric in METRICS)))
                continue
            thresholds, bad = _thresholds("%s.%s" % (where, figure), texts, compared, compare_name)
            problems += bad
            if thresholds:
                rules[scheduler][figure] = thresholds
    return Gate(rules), problems


def _thresholds(where, texts, compared, compare_name):
    listed = texts if isinstance(texts, (list, tuple)) else [texts]
    if not listed:
        return (), ["%s=[] is not allowed: %s, or a list of them" % (where, ALLOWED)]
    thresholds, problems = [], []
    for text in listed:
        try:
            threshold = parse_threshold(text)
        except ValueError:
            problems.append("%s=%r is not allowed: %s" % (where, text, ALLOWED))
            continue
        if threshold.relative and not compared:
            problems.append("%s=%r is not allowed without an earlier run to compare with: set %s, or use "
                            "'>= N' or '<= N'" % (where, text, compare_name))
            continue
        thresholds.append(threshold)
    return tuple(thresholds), problems


# ---------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------
def worse_percent(previous, current, higher_is_better):
    """How much worse ``current`` is than ``previous``, in % of it (negative: better)."""
    worse = previous - current if higher_is_better else current - previous
    if previous == 0:
        return 0.0 if worse == 0 else math.copysign(math.inf, worse)
    return worse / abs(previous) * 100.0


def check(threshold, value, higher_is_better, previous=None, verdict=None):
    """(passed, why) for one threshold: ``value`` is this run's median, ``previous`` the earlier run's and
    ``verdict`` the test's (sched_stats.Verdict, for a significant threshold)."""
    if value is None:
        return False, "no value"
    if not threshold.relative:
        passed = value >= threshold.limit if threshold.operator == ">=" else value <= threshold.limit
        return passed, ""
    if previous is None:
        return False, "no value in the earlier run"
    worse = worse_percent(previous, value, higher_is_better)
    why = "%s by %s%%" % ("worse" if worse > 0 else "better", _number(abs(worse)))
    if worse <= threshold.limit:
        return True, why
    if not threshold.significant:
        return False, why
    if verdict is None or verdict.verdict == NO_VERDICT:
        return False, "%s, and %s" % (why, verdict.describe() if verdict else NO_VERDICT)
    if verdict.verdict == WORSE:
        return False, "%s, significant: %s" % (why, verdict.describe())
    return True, "%s, not significantly: %s" % (why, verdict.describe())


def _number(value):
    if value is None:
        return "n/a"
    if math.isinf(value) or abs(value) >= 1000 or float(value).is_integer():
        return "%.0f" % value
    return "%.4g" % value


@dataclass(frozen=True)
class Check:
    host: str
    scheduler: str
    figure: str
    threshold: Threshold
    value: float | None
    previous: float | None
    passed: bool
    why: str

    @property
    def value_text(self):
        text = _number(self.value)
        if self.threshold.relative:
            text += " (earlier %s)" % _number(self.previous)
        return text

    def as_dict(self):
        return {"host": self.host, "scheduler": self.scheduler, "figure": self.figure, "value": self.value,
                "previous": self.previous, "threshold": self.threshold.text, "passed": self.passed, "why": self.why,
                "line": self.line()}

    def line(self):
        """One line: host, scheduler, figure, value and threshold."""
        return "gate %s: host %s, scheduler %s, %s = %s, threshold %s%s" % (
            "passed" if self.passed else "missed", self.host, self.scheduler, self.figure, self.value_text,
            self.threshold.text, ": " + self.why if self.why else "")


def _median(result, metric):
    return result.stat(metric).median if result is not None and result.has_numbers else None


def _repeats(result, metric):
    return result.values(metric) if result is not None and result.has_numbers else []


@dataclass(frozen=True)
class Refusal:
    """A result the gate did not judge: it was measured on a busy host, or a newer toolkit wrote it (``run``: this
    run's id, or the earlier run's for a relative threshold)."""
    host: str
    scheduler: str
    run: str
    how_busy: str
    other_cpu_percent: float | None
    newer: str | None = None        # the newer-toolkit line of its summary.json

    def as_dict(self):
        return {"host": self.host, "scheduler": self.scheduler, "run": self.run, "how_busy": self.how_busy,
                "other_cpu_percent": self.other_cpu_percent, "newer": self.newer, "line": self.line()}

    def line(self):
        if self.newer:
            return ("gate refused: host %s, scheduler %s in run %s was %s; not judged"
                    % (self.host, self.scheduler, self.run, self.newer))
        return ("gate refused: host %s, scheduler %s was measured on a busy host in run %s, %s; not judged "
                "(bench_gate_busy=refuse)" % (self.host, self.scheduler, self.run, self.how_busy))


def _judged(gate, run):
    """(host, scheduler) of every result the gate judges, in a fixed order."""
    schedulers = list(run.scheduler_names) if ANY in gate.rules else []
    schedulers += [name for name in gate.named_schedulers if name not in schedulers]
    return [(host, scheduler) for host in run.hosts for scheduler in schedulers]


def _newer_refusal(result, host, scheduler, run_id):
    if result is None or result.status != "newer":
        return None
    return Refusal(host, scheduler, run_id, "", None, result.reason)


def _busy_refusal(result, host, scheduler, run_id):
    if result is None or not result.busy_host:
        return None
    load = result.host_load
    return Refusal(host, scheduler, run_id, describe_repeats(load), load["worst"].get("other_cpu_percent"))


def refusals(gate, run, previous=None, busy=JUDGE):
    """A Refusal for every result the gate would judge that a newer toolkit wrote and, with ``busy`` refuse, that
    was measured on a busy host; or whose earlier result was either, when one of its thresholds compares with it."""
    kinds = (_newer_refusal, _busy_refusal) if busy == REFUSE else (_newer_refusal,)
    found = []
    for host, scheduler in _judged(gate, run):
        relative = any(threshold.relative for thresholds in gate.thresholds(scheduler).values()
                       for threshold in thresholds)
        judged = [(run, run.run_id)] + ([(previous, previous.run_id)] if relative and previous is not None else [])
        refusal = next((refused for kind in kinds for which, run_id in judged
                        for refused in [kind(which.result(host, scheduler), host, scheduler, run_id)]
                        if refused is not None), None)
        if refusal is not None:
            found.append(refusal)
    return found


def evaluate(gate, run, previous=None, refused=()):
    """Every check of the gate on every host of the run (sched_report_run.Run), in a fixed order; none for the
    results of ``refused`` (Refusals)."""
    checks = []
    skipped = {(refusal.host, refusal.scheduler) for refusal in refused}
    for host, scheduler in _judged(gate, run):
        if (host, scheduler) in skipped:
            continue
        result = run.result(host, scheduler)
        before = previous.result(host, scheduler) if previous is not None else None
        for figure, thresholds in gate.thresholds(scheduler).items():
            metric = METRIC[figure]
            value, earlier = _median(result, metric), _median(before, metric)
            for threshold in thresholds:
                verdict = None
                if threshold.significant:
                    verdict = compare(_repeats(before, metric), _repeats(result, metric), metric.higher_is_better)
                passed, why = check(threshold, value, metric.higher_is_better, earlier, verdict)
                if value is None:
                    why = _missing(result, run.run_id)
                checks.append(Check(host, scheduler, figure, threshold, value, earlier, passed, why))
    return checks


def _missing(result, run_id):
    if result is None:
        return "not in run %s" % run_id
    if result.has_numbers and result.older_schema is not None:
        return "no value: its summary.json is of schema %d, which has no such figure" % result.older_schema
    if result.has_numbers:
        return "no value: the run did not record this figure"
    return "no value: %s%s" % (result.status, ": " + result.reason if result.reason else "")
