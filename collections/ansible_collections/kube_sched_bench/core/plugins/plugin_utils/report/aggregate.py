# -*- coding: utf-8 -*-
"""The report's aggregation: a scheduler's figures across the fleet of hosts (each host's median over its repeats,
then their median and min-max) and a figure's change against an earlier run, with the test's verdict. No I/O here."""
from __future__ import annotations

from dataclasses import dataclass

from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.stats import compare
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import Stat, stat_of


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


def host_stat(run, host, scheduler, metric):
    result = run.result(host, scheduler)
    return result.stat(metric) if result is not None and result.has_numbers else Stat(None, None, None, 0)


def format_change(change):
    if change.percent is not None:
        return "Δ %+.1f%%" % change.percent
    return "Δ %+g" % change.absolute
