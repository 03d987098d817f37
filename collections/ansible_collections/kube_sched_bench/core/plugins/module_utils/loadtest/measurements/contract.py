# -*- coding: utf-8 -*-
"""What a measurement is (docs/architecture.md, "Adding a figure"): its name, the keys of summary.json it writes,
the looks it takes around the load test (``hooks``: moment -> look(test, summary), kept in ``looks[name][moment]``)
and ``gather``, which turns the run's records and its looks into its part of summary.json without any I/O of its
own. The load test takes the looks (``take``); ``merge`` gathers every part, in order, into summary.json."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records as scenario_records

# When the load test takes the looks: at its start, just before the jobs are created, once every pod is bound (not
# in a run that failed), when it starts writing its results (always), and just before the measurement's gather
# ("summary": the look that needs the figures gathered so far, given as its second argument).
MOMENTS = ("begin", "before_load", "after_load", "end", "summary")


@dataclass(frozen=True)
class Measurement:
    name: str
    keys: tuple                          # summary.json's top-level keys it writes (schema and docs/metrics.md)
    gather: Callable                     # gather(context, summary so far) -> {key: value}, keys of ``keys`` only
    hooks: dict = field(default_factory=dict)


@dataclass
class Context:
    """What every measurement gathers from: the run (scheduler, run_label, namespace, scenario, workload, jobs and
    the calibration's ceilings), what was measured (records per pod, job_created, job_admitted, source, backlog,
    job_held), the submission (submitted, window_s, errors, pods_expected), its outcome (complete, reason,
    timed_out, started_at, finished_at, phases_s, audit_log_bytes) and the looks taken around the load test."""
    run: dict
    measured: dict
    submission: dict
    outcome: dict
    looks: dict = field(default_factory=dict)
    jobs: list = field(default_factory=list)      # the job records (jobs.csv)
    pods: list = field(default_factory=list)      # the pod records (pods.csv)
    timeline: list = field(default_factory=list)  # timeline.csv's rows, once the timing measurement has gathered
    test: object = None                            # the load test, whose looks the "summary" hooks take


def context_of(run, measured, submission, outcome, looks=None, test=None):
    """The Context of a load test, with its job and pod records."""
    records = measured["records"]
    jobs = scenario_records.job_records(submission["submitted"], measured["job_created"], records,
                                        measured["job_admitted"], measured.get("job_held"))
    return Context(run, measured, submission, outcome, looks if looks is not None else {}, jobs,
                   scenario_records.pod_records(records), [], test)


def look(context, measurement, moment):
    """What ``measurement``'s hook took at ``moment``, or None."""
    return (context.looks.get(measurement) or {}).get(moment)
