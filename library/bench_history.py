#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module documentation: write the history of a results directory
(the work is the action's, on the controller: action_plugins/bench_history.py)."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_history
short_description: Write history.sqlite, index.html and index.csv over every benchmark run of a results directory
description:
  - Reads every run under O(results_dir) (each C(<run_id>/) laid out as library/bench_report.py reads it) and writes
    into O(results_dir) C(index.html), a table of the runs (when, hosts, schedulers, workload, repeats, how many
    results are complete, the gate's outcome, a link to each run's report) and, per host, scheduler and
    configuration, trend charts (inline SVG) of the mean throughput, the p50 and p99 scheduling latency and the
    makespan over time, each run's point with its repeats' interval; and C(index.csv), one row per run, host and
    scheduler with every figure of the report.
  - C(history.sqlite) holds the same as a SQLite database (tables runs, configurations, results, knobs and versions;
    the schema and example queries are in docs/ci-and-python.md), and C(index.html) is rendered from it.
  - A configuration is the scenario and workload, the versions (Kubernetes, the components', the scheduler's),
    the runtime and the scheduler's and controller's knobs; runs that differ in any of them are drawn on separate
    lines. The number of repeats and the timeout do not count.
  - The gate's outcome is the one the run's report recorded (C(report.json)); a run without a report has none.
  - Directories that hold no results are left out and named on the page.
  - Files are only rewritten when their content changes.
  - Runs on the controller; needs nothing beyond Python's standard library.
version_added: "0.1.0"
options:
  results_dir:
    description: The results directory, C(results/) of the project by default in C(playbooks/history.yml).
    type: path
    required: true
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Write the history of results/
  bench_history:
    results_dir: results
  register: history

- name: Show where it is
  ansible.builtin.debug:
    msg: "{{ history.index_html }}: {{ history.runs }} runs, {{ history.lines }} trend lines"
"""

RETURN = r"""
index_html:
  description: Path of the page.
  returned: success
  type: str
  sample: /home/bench/kube-sched-bench/results/index.html
index_csv:
  description: Path of the CSV.
  returned: success
  type: str
history_sqlite:
  description: Path of the SQLite database.
  returned: success
  type: str
results_bytes:
  description: What every file under O(results_dir) weighs, in bytes (the toolkit never prunes the controller's results).
  returned: success
  type: int
runs:
  description: How many runs the history holds.
  returned: success
  type: int
lines:
  description: How many trend lines (host, scheduler and configuration) it draws.
  returned: success
  type: int
skipped:
  description: The directories left out, each with why.
  returned: success
  type: list
  elements: str
rebuilt:
  description: The line saying that the history.sqlite found was written by a newer toolkit and was rebuilt from the
    result files instead of read; null otherwise.
  returned: success
  type: str
"""
