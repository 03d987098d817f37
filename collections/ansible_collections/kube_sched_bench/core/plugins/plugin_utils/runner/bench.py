# -*- coding: utf-8 -*-
"""bench.yml from Python, through ansible-runner: ``run`` starts a run, calls ``on_event`` with each BenchEvent as it
happens, and returns a BenchRun (the exit code, the results directory, each host's outcome, the gate's).

    from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner.bench import run

    outcome = run("inventories/local", {"bench_schedulers": ["default"], "bench_jobs": 50},
                  on_event=lambda event: print(event.line))
    print(outcome.rc, outcome.results_dir, outcome.hosts["localhost"].schedulers)

Runs the project's own Ansible (the Python running this), with its ansible.cfg; docs/ci-and-python.md, "From Python".
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field

import ansible_runner
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner.arguments import (  # noqa: F401 (BenchArgumentError: the error run() raises, imported from here)
    BenchArgumentError,
    check_inventory,
    check_playbook,
    check_private_data_dir,
    check_values,
    inventory_source,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner.events import bench_events
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner.outcome import Outcome


def find_project(start=__file__):
    """The project's directory: the nearest one above ``start`` that holds bench.yml and ansible.cfg."""
    directory = os.path.dirname(os.path.abspath(start))
    while not (os.path.isfile(os.path.join(directory, "bench.yml")) and os.path.isfile(os.path.join(directory, "ansible.cfg"))):
        parent = os.path.dirname(directory)
        if parent == directory:
            raise FileNotFoundError("no directory with bench.yml and ansible.cfg above %s" % start)
        directory = parent
    return directory


PROJECT = find_project()


@dataclass
class BenchRun:
    rc: int                         # ansible-playbook's exit code: 0 when every host and the gate passed
    status: str                     # ansible-runner's: successful, failed, timeout or canceled
    results_dir: str | None         # results/<run_id>, as the report wrote it (None when no report was written)
    hosts: dict = field(default_factory=dict)       # host -> outcome.HostOutcome (status, schedulers, failures)
    gate: dict | None = None        # the gate's outcome as report.json holds it (None without bench_gate)


def runner_env(extra=None):
    """The environment of the run: the project's ansible.cfg and this Python's ansible-playbook first on PATH."""
    env = {"ANSIBLE_CONFIG": os.path.join(PROJECT, "ansible.cfg"), "ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0",
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    env.update(extra or {})
    return env


def run(inventory, extravars=None, on_event=None, playbook="bench.yml", cmdline=None, timeout=None, envvars=None,
        private_data_dir=None):
    """Run ``playbook`` (bench.yml) of the project on ``inventory`` (a path) with ``extravars`` (a dict: the bench_*
    knobs); ``on_event(BenchEvent)`` is called for each play, task, progress line, failure and the recap as they
    happen. ``cmdline``: more ansible-playbook arguments (a string); ``timeout``: seconds before the run is stopped;
    ``private_data_dir``: where ansible-runner keeps its artifacts (a temporary directory, removed, by default).
    An argument no run can start with raises BenchArgumentError (a ValueError) naming it, before anything starts."""
    check_values(extravars, on_event, cmdline, timeout, envvars)
    check_playbook(playbook, PROJECT)
    check_private_data_dir(private_data_dir)
    inventory = inventory_source(inventory)
    check_inventory(inventory, cmdline)
    outcome = Outcome()

    def handle(event):
        outcome.feed(event)
        if on_event is not None:
            for bench_event in bench_events(event):
                on_event(bench_event)
        return True

    temporary = private_data_dir is None
    private = tempfile.mkdtemp(prefix="kube-sched-bench-runner-") if temporary else private_data_dir
    try:
        runner = ansible_runner.run(private_data_dir=private, project_dir=PROJECT, playbook=playbook,
                                    inventory=inventory, extravars=dict(extravars or {}),
                                    cmdline=cmdline, envvars=runner_env(envvars), quiet=True, timeout=timeout,
                                    event_handler=handle)
    finally:
        if temporary:
            shutil.rmtree(private, ignore_errors=True)
    summary = (outcome.report or {}).get("summary") or {}
    return BenchRun(runner.rc, runner.status, outcome.results_dir, outcome.hosts, summary.get("gate"))
