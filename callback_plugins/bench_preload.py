# -*- coding: utf-8 -*-
"""bench_preload: load the Jinja filters and tests once, before Ansible forks its workers.

Ansible runs every task in a freshly forked worker process. A worker that templates a filter loads
every filter plugin file first (ours import module_utils such as sched_gate), and throws that away when
the task ends, so a run paid it again in nearly every task: about 8 ms a task on this project's 2-core
machine, 0.5 s of a seed run's 130 tasks (measured with cProfile in the workers, docs/measurements.md).
Loaded here, in the controller's main process when the playbook starts, the plugins are inherited by
every worker the fork makes, and no worker loads them again.
"""
from __future__ import annotations

from ansible.plugins.callback import CallbackBase
from ansible.plugins.loader import filter_loader, test_loader

DOCUMENTATION = """
name: bench_preload
type: aggregate
short_description: load the Jinja filter and test plugins once, before the workers fork
description:
  - When the playbook starts, loads every filter and test plugin in the configured paths in the main
    process, so that the forked workers inherit them instead of loading them in every task.
requirements:
  - enabled in ansible.cfg (callbacks_enabled)
"""


def preload():
    """Load every filter and test plugin of the configured paths; the number of plugins loaded."""
    return sum(1 for _ in filter_loader.all()) + sum(1 for _ in test_loader.all())


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "bench_preload"
    CALLBACK_NEEDS_ENABLED = True

    def v2_playbook_on_start(self, playbook):
        preload()
