# -*- coding: utf-8 -*-
"""Findings: the promises of a scenario (its thresholds) that a scheduler broke, from its scenario metrics.

An unexpected behaviour is a finding, not a failed run. The thresholds and what each means are in
sched_scenarios.THRESHOLDS; the metrics come from sched_scenario_metrics.scenario_metrics. No I/O here.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.checks import THRESHOLDS


def _names(names, most=5):
    return ", ".join(names[:most]) + (" and %d more" % (len(names) - most) if len(names) > most else "")


# Each check of a threshold returns (measured, verdict, sentence): the figure it compared with the limit, MET,
# MISSED or UNCHECKED, and the finding's sentence (None when met). docs/scenarios.md#findings.
MET, MISSED, UNCHECKED, UNSUPPORTED = "met", "missed", "unchecked", "unsupported"


def _stuck(limit, metrics):
    stuck = (metrics.get("gang") or {}).get("stuck_partial_jobs") or []
    if stuck:
        return len(stuck), MISSED, "%d gang jobs stayed partly bound longer than stuck_partial_s=%g: %s" % (
            len(stuck), limit, _names(stuck))
    return 0, MET, None


def _stalled(limit, metrics):
    found = (metrics.get("gang") or {}).get("stalls") or []
    if found:
        more = ", and %d more such spans" % (len(found) - 1) if len(found) > 1 else ""
        return len(found), MISSED, "no pod was bound from %g s to %g s while gang job %s would have fit the free room " \
            "(stall_s=%g)%s" % (found[0]["from_s"], found[0]["to_s"], found[0]["job"], limit, more)
    return 0, MET, None


def _unfair(limit, metrics):
    fair = metrics.get("fair_share") or {}
    error = fair.get("fairness_error")
    if error is None:
        return None, UNCHECKED, "fairness_error=%g could not be checked: no CPU was allocated" % limit
    if error > limit:
        return error, MISSED, "the fairness error %.3f is above fairness_error=%g (Jain's index %.3f)" % (
            error, limit, fair["jain_index"])
    return error, MET, None


def _late_high(limit, metrics):
    priority = metrics.get("priority") or {}
    unbound = priority.get("high_priority_unbound_jobs") or []
    longest = (priority.get("high_priority_wait_ms") or {}).get("max")
    measured = round(longest / 1000.0, 6) if longest is not None else None
    if unbound:
        return measured, MISSED, "%d high-priority jobs never had all their pods bound (high_priority_wait_s=%g): %s" % (
            len(unbound), limit, _names(unbound))
    if longest is None:
        return None, UNCHECKED, "high_priority_wait_s=%g could not be checked: no high-priority job was measured" % limit
    if longest > limit * 1000:
        return measured, MISSED, "a high-priority job waited %.1f s for all its pods, more than high_priority_wait_s=%g" \
            % (longest / 1000.0, limit)
    return measured, MET, None


def _slow_steady(limit, metrics):
    steady = metrics.get("steady") or {}
    p99 = (steady.get("latency_ms") or {}).get("p99")
    if p99 is None:
        return None, UNCHECKED, "latency_p99_ms=%g could not be checked: no pod was bound in the steady window" % limit
    if p99 > limit:
        return p99, MISSED, "the p99 pod latency in the steady window (%g s to %g s) is %.1f ms, above " \
            "latency_p99_ms=%g" % (steady["window"]["from_s"], steady["window"]["to_s"], p99, limit)
    return p99, MET, None


def _short_rate(limit, metrics):
    steady = metrics.get("steady") or {}
    offered, bound = steady.get("offered_pods_per_s"), steady.get("bound_pods_per_s")
    if offered is None or bound is None:
        return None, UNCHECKED, "rate_shortfall=%g could not be checked: the steady window is empty" % limit
    shortfall = round(1 - bound / offered, 4) if offered else None
    if bound < offered * (1 - limit):
        return shortfall, MISSED, "the steady window bound %.2f pods/s of the %.2f offered, short by more than " \
            "rate_shortfall=%g" % (bound, offered, limit)
    return shortfall, MET, None


def _loose_packing(limit, metrics):
    peak = (metrics.get("utilization") or {}).get("peak_cpu_share")
    if peak is None:
        return None, UNCHECKED, "peak_cpu_share=%g could not be checked: nothing was bound" % limit
    if peak < limit:
        return peak, MISSED, "the peak allocated CPU share %.3f is below peak_cpu_share=%g" % (peak, limit)
    return peak, MET, None


# One check per threshold of sched_scenarios.THRESHOLDS.
_CHECKS = {"stuck_partial_s": _stuck, "stall_s": _stalled, "fairness_error": _unfair, "high_priority_wait_s": _late_high,
           "latency_p99_ms": _slow_steady, "rate_shortfall": _short_rate, "peak_cpu_share": _loose_packing}


def checks(thresholds, metrics, unsupported=()):
    """summary.json's ``checks``: one record per threshold the scenario has, in THRESHOLDS' order: the threshold,
    the measured figure, the limit, the verdict (UNSUPPORTED where the scheduler cannot express the feature: no
    finding then) and the finding's sentence (None unless missed or unchecked)."""
    out = []
    for name in THRESHOLDS:
        if name not in thresholds:
            continue
        measured, verdict, sentence = _CHECKS[name](thresholds[name], metrics)
        if THRESHOLDS[name][1] in unsupported:
            verdict, sentence = UNSUPPORTED, None
        out.append({"threshold": name, "measured": measured, "limit": thresholds[name], "verdict": verdict,
                    "finding": sentence})
    return out


def _timed_out(timeout_s, metrics):
    breakdown = metrics.get("breakdown") or {}
    waiting = breakdown.get("jobs_not_all_bound") or []
    return "%d of %d jobs did not have all their pods bound when the wait ran out (timeout=%g s): %s" % (
        len(waiting), breakdown.get("jobs", len(waiting)), timeout_s, _names(waiting))


def findings(thresholds, metrics, unsupported=(), timed_out_s=None):
    """The promises of a scenario's ``thresholds`` that a run's ``metrics`` broke, one sentence each.

    ``unsupported``: the features (THRESHOLDS' second item: gang, fair_share, priority, ...) the scheduler cannot
    express; their promises are not its own and are skipped. ``timed_out_s``: the wait's timeout when it ran out
    before every job held all its pods, the first finding then.
    """
    return findings_of(checks(thresholds, metrics, unsupported), metrics, timed_out_s)


def findings_of(records, metrics, timed_out_s=None):
    """The findings of ``checks`` records already made: the timeout's first, then each record's sentence."""
    kept = [record["finding"] for record in records if record["finding"]]
    return ([_timed_out(timed_out_s, metrics)] if timed_out_s is not None else []) + kept


def findings_by_scheduler(thresholds, metrics_by_scheduler, unsupported_by_scheduler=None):
    """{scheduler: findings} for the metrics of each scheduler on one scenario."""
    unsupported_by_scheduler = unsupported_by_scheduler or {}
    return {scheduler: findings(thresholds, metrics, unsupported_by_scheduler.get(scheduler, ()))
            for scheduler, metrics in metrics_by_scheduler.items()}
