# -*- coding: utf-8 -*-
"""ansible-runner's events of a bench.yml run as the few a caller follows (BenchEvent): a play or a task starting,
a progress line of a long step (the load test's and the builds', printed by action_plugins/bench_async_wait.py as
``[<host>] <text>``), a task that failed or a host that could not be reached, and the recap's counts. No I/O."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

PLAY, TASK, PROGRESS, FAILED, UNREACHABLE, STATS = "play", "task", "progress", "failed", "unreachable", "stats"
_PROGRESS = re.compile(r"^\[(?P<host>[^\]\s]+)\] (?P<text>\S.*)$")


@dataclass(frozen=True)
class BenchEvent:
    kind: str                   # play, task, progress, failed, unreachable or stats
    host: str | None            # the host it is about (None for a play, a task and the recap)
    text: str                   # one line: the play's or task's name, the progress, "task: message", the counts
    raw: dict = field(default_factory=dict, repr=False, compare=False)     # ansible-runner's event

    @property
    def line(self):
        """What a terminal would show: the text, after the host in brackets when there is one."""
        return "[%s] %s" % (self.host, self.text) if self.host else self.text


def one_line(text):
    return " ".join(str(text or "").split())


def failure_text(data):
    """'<task>: <message>' of a failed or unreachable task's event_data."""
    result = data.get("res") or {}
    message = result.get("msg") or result.get("stderr") or result.get("reason") or "no message"
    return "%s: %s" % (data.get("task") or "an unknown task", one_line(message))


def _stats_text(data):
    hosts = sorted(set().union(*(data.get(key) or {} for key in ("ok", "failures", "dark", "skipped"))))
    return "; ".join("%s ok=%d failed=%d unreachable=%d" % (
        host, (data.get("ok") or {}).get(host, 0), (data.get("failures") or {}).get(host, 0),
        (data.get("dark") or {}).get(host, 0)) for host in hosts)


def progress_events(event):
    """The progress lines an event's output holds, one BenchEvent each."""
    found = []
    for line in str(event.get("stdout") or "").splitlines():
        match = _PROGRESS.match(line.strip())
        if match:
            found.append(BenchEvent(PROGRESS, match.group("host"), match.group("text"), event))
    return found


def bench_events(event):
    """The BenchEvents of one ansible-runner event (a dict with ``event`` and ``event_data``); often none."""
    name, data = event.get("event"), event.get("event_data") or {}
    if name == "playbook_on_play_start":
        return [BenchEvent(PLAY, None, one_line(data.get("play") or data.get("name")), event)]
    if name == "playbook_on_task_start":
        return [BenchEvent(TASK, None, one_line(data.get("task") or data.get("name")), event)]
    if name == "runner_on_failed" and not data.get("ignore_errors"):
        return [BenchEvent(FAILED, data.get("host"), failure_text(data), event)]
    if name == "runner_on_unreachable":
        return [BenchEvent(UNREACHABLE, data.get("host"), failure_text(data), event)]
    if name == "playbook_on_stats":
        return [BenchEvent(STATS, None, _stats_text(data), event)]
    if name == "verbose":
        return progress_events(event)
    return []
