# -*- coding: utf-8 -*-
"""Each host's outcome of a bench.yml run and where its results are, gathered from ansible-runner's events as they
arrive (Outcome.feed): the recap of playbooks/verdict.yml (one line per host and scheduler), the failed tasks, the
recap's counts (which hosts failed or were unreachable) and the report's result (its paths and the gate's outcome).
No I/O."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner.events import failure_text

RECAP_TASK = "Show the recap of every host and scheduler"
REPORT_TASK = "Write the report"
OK, FAILED, UNREACHABLE = "ok", "failed", "unreachable"


@dataclass
class HostOutcome:
    status: str = OK                                    # ok, failed or unreachable
    schedulers: dict = field(default_factory=dict)      # scheduler -> "done", "failed at <task>: <msg>", "not run, ..."
    failures: list = field(default_factory=list)        # "<task>: <message>" of each failed task, in order


@dataclass
class Outcome:
    hosts: dict = field(default_factory=dict)           # host -> HostOutcome
    report: dict | None = None                          # the report action's result (report_html, summary, ...)

    def host(self, name):
        return self.hosts.setdefault(name, HostOutcome())

    @property
    def results_dir(self):
        """results/<run_id> of the run, as the report wrote it; None when no report was written."""
        path = (self.report or {}).get("report_html")
        return os.path.dirname(path) if path else None

    def feed(self, event):
        """Take one ansible-runner event into account."""
        name, data = event.get("event"), event.get("event_data") or {}
        if name == "runner_on_ok" and data.get("task") == RECAP_TASK:
            self._recap((data.get("res") or {}).get("msg") or [])
        elif name == "runner_on_ok" and data.get("task") == REPORT_TASK:
            self.report = data.get("res") or {}
        elif name in ("runner_on_failed", "runner_on_unreachable") and not data.get("ignore_errors") and data.get("host"):
            self.host(data["host"]).failures.append(failure_text(data))
        elif name == "playbook_on_stats":
            self._stats(data)

    def _stats(self, data):
        # The recap's counts decide: a failure a play rescued (run-scheduler.yml records a scheduler's and goes on)
        # is in the host's failures but does not fail the host; the verdict play fails it when it counts.
        for host in data.get("dark") or {}:
            self.host(host).status = UNREACHABLE
        for host, count in (data.get("failures") or {}).items():
            if count and self.host(host).status == OK:
                self.host(host).status = FAILED

    def _recap(self, lines):
        # "<host>  <scheduler>: <outcome>" (playbooks/verdict.yml); "(all)" for a host that dropped out.
        for line in lines if isinstance(lines, list) else [lines]:
            host, _, rest = str(line).partition("  ")
            scheduler, _, outcome = rest.partition(": ")
            if host and scheduler:
                self.host(host).schedulers[scheduler] = outcome
