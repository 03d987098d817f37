# -*- coding: utf-8 -*-
"""Callback: where the run's wall time went, per host and phase.

Times every task on every host, puts it in a phase (plugin_utils/report/phases.py
holds the rules and the arithmetic), prints one table when the playbook ends and writes
it to <bench_results_root>/phases.json when the run has a results directory. The file is
also written, up to that moment, when the report play starts, so that the report can show it.
"""
from __future__ import annotations

import json
import os
import tempfile
import time

from ansible.plugins.callback import CallbackBase
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.phases import phase_of, summarize, table_lines

DOCUMENTATION = """
name: bench_phases
type: aggregate
short_description: print and record where a benchmark run's wall time went
description:
  - Puts every task's wall time, per host, in a phase (input checks, Go and builds, cluster start,
    calibration, scheduler deploy, load test, fetch, teardown, report, other), prints a table at the
    end of the playbook and writes results/<run_id>/phases.json.
requirements:
  - enabled in ansible.cfg (callbacks_enabled)
"""

RESULTS_ROOT_FACT = "bench_results_root"
PHASES_FILE = "phases.json"
INCLUDES = ("include_tasks", "import_tasks", "ansible.builtin.include_tasks", "ansible.builtin.import_tasks")
FACT_GATHERING = ("gather_facts", "setup", "ansible.builtin.gather_facts", "ansible.builtin.setup")
SET_FACT = ("set_fact", "ansible.builtin.set_fact")
# The play that writes the report: phases.json is written before it starts.
REPORT_PLAY_FILE = "report.yml"


def path_of(item):
    try:
        path = item.get_path()
    except (AttributeError, TypeError):
        return ""
    return path.rsplit(":", 1)[0] if path else ""


def task_origins(task):
    """Where a task comes from, innermost first: what it includes, its own file, the includes around it."""
    origins = []
    item, depth = task, 0
    while item is not None and depth < 50:
        role_name = getattr(item, "_role_name", None)
        if role_name:
            tasks_from = (getattr(item, "_from_files", None) or {}).get("tasks") or "main"
            origins.append("roles/%s/tasks/%s.yml" % (role_name, os.path.splitext(str(tasks_from))[0]))
        action = getattr(item, "action", None)
        if action in INCLUDES:
            included = (getattr(item, "args", None) or {})
            included = included.get("_raw_params") or included.get("file")
            if included:
                origins.append(str(included))
        if action in FACT_GATHERING:
            origins.append("gather_facts")
        path = path_of(item)
        if path and path not in origins:
            origins.append(path)
        item, depth = getattr(item, "_parent", None), depth + 1
    return origins


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "bench_phases"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clock = time.monotonic
        self._start = self._clock()
        self._started = {}          # (host, task uuid) -> (start, phase)
        self._phases = {}           # task uuid -> phase
        self._spans = {}            # host -> [(start, end, phase)]
        self._results_root = None
        self._root_was_there = False

    def _phase(self, task):
        uuid = task._uuid
        if uuid not in self._phases:
            self._phases[uuid] = phase_of(task_origins(task))
        return self._phases[uuid]

    def v2_playbook_on_start(self, playbook):
        self._start = self._clock()

    def v2_playbook_on_play_start(self, play):
        origin = getattr(play, "_origin", None)
        if getattr(origin, "path", "") and os.path.basename(origin.path) == REPORT_PLAY_FILE:
            self._write(self._document())

    def v2_runner_on_start(self, host, task):
        self._started[(host.get_name(), task._uuid)] = (self._clock(), self._phase(task))

    def _finish(self, result):
        host, task = result.host.get_name(), result.task
        started = self._started.pop((host, task._uuid), None)
        if started is None:
            return
        self._spans.setdefault(host, []).append((started[0], self._clock(), started[1]))
        if task.action in SET_FACT:
            root = (result.result.get("ansible_facts") or {}).get(RESULTS_ROOT_FACT)
            if isinstance(root, str) and root and root != self._results_root:
                # A directory there before the run chose it belongs to an earlier run, which the play
                # refuses to overwrite: nothing is written into it.
                self._results_root = root
                self._root_was_there = os.path.exists(root)

    def v2_runner_on_ok(self, result):
        self._finish(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._finish(result)

    def v2_runner_on_skipped(self, result):
        self._finish(result)

    def v2_runner_on_unreachable(self, result):
        self._finish(result)

    def _document(self):
        run_id = os.path.basename(self._results_root.rstrip("/")) if self._results_root else None
        return summarize(self._spans, self._start, self._clock(), run_id)

    def _write(self, document):
        """Write phases.json into the run's results directory, if the run has one and it exists."""
        if not self._results_root or self._root_was_there or not os.path.isdir(self._results_root):
            return
        path = os.path.join(self._results_root, PHASES_FILE)
        try:
            handle, tmp = tempfile.mkstemp(prefix="." + PHASES_FILE, dir=self._results_root)
            with os.fdopen(handle, "w") as out:
                out.write(json.dumps(document, indent=2) + "\n")
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except OSError as exc:
            self._display.warning("bench_phases: could not write %s: %s" % (path, exc))

    def v2_playbook_on_stats(self, stats):
        if not self._spans:
            return
        document = self._document()
        self._write(document)
        self._display.banner("WHERE THE TIME WENT")
        for line in table_lines(document):
            self._display.display(line)
