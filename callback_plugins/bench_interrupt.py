# -*- coding: utf-8 -*-
"""bench_interrupt: SIGTERM ends a run as Ctrl-C does, and either says what happens next.

Ansible ends on SIGTERM by killing itself with it (its workers get it too), without a word; on SIGINT it
prints "User interrupted execution". Either way the hosts' guards (module_utils/host/guard.py) stop
what the run started there and release their locks. This callback makes SIGTERM take Ctrl-C's path
(exit code 99 instead of death by signal) and prints, for both, one line naming the signal, the task
that was running and the command that brings back what was measured.
"""
from __future__ import annotations

import signal

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: bench_interrupt
type: aggregate
short_description: end a benchmark run on SIGTERM as on Ctrl-C, and say where its results are
description:
  - On SIGINT or SIGTERM, prints which task was interrupted and how to fetch what was measured
    (make fetch RUN=<run_id>), then ends the run as Ansible ends it on Ctrl-C.
requirements:
  - enabled in ansible.cfg (callbacks_enabled)
"""

RUN_FACT = "bench_run"


def interruption_line(signum, task, run_id):
    """The line printed when the run is interrupted."""
    name = signal.Signals(signum).name
    where = " during %r" % task if task else ""
    fetch = ("bring back what was measured with: make fetch RUN=%s" % run_id if run_id
             else "no run id was chosen yet: nothing was measured")
    return ("Interrupted by %s%s. Each host's guard stops what this run started there and releases its lock; "
            "%s" % (name, where, fetch))


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "bench_interrupt"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.task = ""
        self.run_id = ""
        self.previous = {}

    def v2_playbook_on_start(self, playbook):
        # Ansible's own handlers (which pass the signal to the workers) are in place by now.
        for signum in (signal.SIGINT, signal.SIGTERM):
            self.previous[signum] = signal.getsignal(signum)
            signal.signal(signum, self.interrupted)

    def interrupted(self, signum, frame):
        for other in self.previous:
            signal.signal(other, signal.SIG_IGN)
        self._display.error(interruption_line(signum, self.task, self.run_id), wrap_text=False)
        handler = self.previous.get(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)  # passes SIGINT to the workers and raises KeyboardInterrupt
        raise KeyboardInterrupt

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.task = task.get_name()

    def v2_runner_on_ok(self, result):
        facts = result._result.get("ansible_facts") or {}
        if facts.get(RUN_FACT):
            self.run_id = str(facts[RUN_FACT])
