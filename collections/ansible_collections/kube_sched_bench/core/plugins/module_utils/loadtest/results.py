# -*- coding: utf-8 -*-
"""The load test's results: what it measured (from the audit log, or from its watch) and the result files written
from them (``Results``, a part of load.LoadTest); summary.json is the merge of the registered measurements
(measurements/)."""
from __future__ import annotations

import csv
import io
import json
import os
import time

from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import capacity
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import measurements
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import context_of
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import audit as metrics
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import host_load
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import files as result_files
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records as scenario_records

# How long the analysis waits for the audit log to hold what the watch saw (bench_host_guard.LOADTEST_GRACE_S is
# what an interrupted load test has to write its results).
AUDIT_CATCH_UP_S = 5.0
TIMELINE_FIELDS = ["second", "created", "created_total", "bound", "bound_total", "backlog"]


class Results:
    """The measuring and writing of load.LoadTest: its attributes are the load test's (p, scenario, workload, jobs,
    watch, submitted, submit_*, phases, timestamps, costs and load samples)."""

    def measure(self):
        """Per-pod records, job creation and admission times (None: no admission step, or no audit log), the
        timing source, from the audit log if there is one, and the release of a held backlog (None: open loop)."""
        audit_log = self.p["audit_log"]
        if audit_log:
            files = metrics.audit_log_files(audit_log)
            if files:
                wanted = len(self.watch.records()) if self.watch else 0
                times = None
                # The audit backend may lag a moment behind the watch; read until it caught up, for a few seconds
                # at most: an interrupted run has its host guard's grace to write what it measured.
                until = time.monotonic() + AUDIT_CATCH_UP_S
                while True:
                    times = metrics.AuditTimes(self.p["namespace"])
                    for event in metrics.read_audit_events(metrics.audit_log_files(audit_log), self.p["namespace"]):
                        times.add(event)
                    caught_up = len(times.pod_created) >= wanted and len(times.pod_bound) >= self._bound_seen()
                    if caught_up or time.monotonic() > until:
                        break
                    time.sleep(0.5)
                admitted = times.job_admitted if self.p["scheduler"] in capacity.ADMITTING_SCHEDULERS else None
                # The audit log has no pod's completion (kwok's status updates are logged without content).
                done = self.watch.completions() if self.watch else {}
                records = [dict(record, completed_us=done.get(record["pod"])) for record in times.records()]
                return records, times.job_created, admitted, "audit", times.released_us or self.release_us
        records = self.watch.records() if self.watch else []
        return records, {}, None, "watch", self.release_us

    def clock_events(self, release_us, source):
        """scenario.json's events: the moments the load test decided on its own clock (the submission window) and
        the release of a held backlog (the audit log's, or this client's clock without one), docs/metrics.md#events."""
        moments = [("submit_start", self.submit_start_us, "load test"), ("submit_end", self.submit_end_us, "load test")]
        if release_us is not None:
            audited = source == "audit" and release_us != self.release_us
            moments.append(("release", release_us, "audit" if audited else "load test"))
        return [{"event": name, "at": metrics.format_time_us(when), "clock": clock}
                for name, when, clock in moments if when is not None]

    def _bound_seen(self):
        return self.watch.counts().bound if self.watch else 0

    def host_load_sample(self):
        """The host's CPU counters and processes now, the benchmark's own named by the pid files of O(own_pid_dir)
        and O(scheduler_pid_files), O(own_pids) and this process; None when /proc cannot be read."""
        roots = host_load.pids_of([self.p["own_pid_dir"]] if self.p.get("own_pid_dir") else [],
                                  self.p["scheduler_pid_files"])
        try:
            return host_load.sample(roots + list(self.p.get("own_pids") or []) + [os.getpid()])
        except (OSError, ValueError, IndexError):
            return None

    def write_results(self, complete, reason):
        # Before the analysis, which is the load test's own work after the load.
        measurements.take("end", self, self.looks)
        analysis_start = time.monotonic()
        records, job_times, job_admitted, source, release_us = self.measure()
        backlog, job_held = None, {}
        if release_us is not None:
            records, job_times, job_admitted, backlog, job_held = metrics.from_release(records, job_times, job_admitted,
                                                                                       release_us)
        events = self.clock_events(release_us, source)
        window = ((self.submit_end_us - self.submit_start_us) / 1_000_000.0
                  if self.submit_end_us and self.submit_start_us else None)
        self.phases["analysis"] = round(time.monotonic() - analysis_start, 3)
        context = context_of(
            {"scheduler": self.p["scheduler"], "run_label": self.p["run_label"], "namespace": self.p["namespace"],
             "scenario": self.scenario, "workload": self.workload, "jobs": self.jobs,
             "ceiling_pods_per_s": self.p.get("ceiling_pods_per_s"),
             "binding_ceiling_pods_per_s": self.p.get("binding_ceiling_pods_per_s"),
             "busy_threshold": self.p.get("busy_threshold")},
            {"records": records, "job_created": job_times, "job_admitted": job_admitted, "source": source,
             "backlog": backlog, "job_held": job_held},
            {"submitted": self.submitted, "window_s": window, "errors": self.submit_errors,
             "pods_expected": self.pods_total()},
            {"complete": complete, "reason": reason, "timed_out": self.timed_out, "started_at": self.started_at,
             "phases_s": self.phases, "finished_at": metrics.format_time_us(int(time.time() * 1_000_000)),
             "audit_log_bytes": metrics.files_size(metrics.audit_log_files(self.p["audit_log"])
                                                   if self.p["audit_log"] else [])},
            self.looks, self)
        pod_rows = scenario_records.scenario_pod_rows(records, context.jobs, self.scenario["cluster"])
        more = {"jobs.csv": _csv_text(scenario_records.JOB_FIELDS, scenario_records.job_rows(context.jobs, context.pods)),
                "scenario.json": json.dumps(dict(self.scenario, events=events), indent=1, sort_keys=True) + "\n"}
        pods_csv = _csv_text(scenario_records.pod_fields(self.scenario["cluster"]), pod_rows)
        summary = measurements.merge(context)
        self.phases["analysis"] = round(time.monotonic() - analysis_start, 3)
        return write_files(self.p["output_dir"], summary, pods_csv, context.timeline, more), summary


def _csv_text(fields, rows):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def write_files(output_dir, summary, pods_csv, timeline, more=None):
    """Write the result files (summary.json, pods.csv, timeline.csv and ``more``: name -> text), pods.csv and jobs.csv
    compressed (bench_result_files); each appears whole or not at all, summary.json last."""
    os.makedirs(output_dir, exist_ok=True)
    contents = dict(more or {})
    contents.update({
        "pods.csv": pods_csv,
        "timeline.csv": _csv_text(TIMELINE_FIELDS, timeline),
        "summary.json": json.dumps(summary, indent=2, sort_keys=True) + "\n",
    })
    paths = []
    for name, text in contents.items():
        path = os.path.join(output_dir, result_files.stored_name(name))
        write_atomically(path, result_files.encode(name, text))
        paths.append(path)
    return paths
