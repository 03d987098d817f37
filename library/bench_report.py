#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module documentation: write the report of a benchmark run
(the work is the action's, on the controller: action_plugins/bench_report.py)."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_report
short_description: Write the Markdown, HTML and CSV report and the charts of a benchmark run
description:
  - Reads a run directory laid out as C(<run_dir>/<host>/<scheduler>/summary.json) (with C(repeat-<k>/)
    subdirectories for repeats and C(<host>/failed.json) for a host that failed) and writes C(report.md),
    C(report.html), C(report.csv), C(report.json) and PNG charts under C(report-charts/) into O(output_dir).
  - Per host, a table of every scheduler's numbers (median over repeats, with its 95 % bootstrap interval from 3
    repeats on, else min-max); per scheduler, the same numbers across hosts; the hosts' environments side by
    side; failed hosts and schedulers with their reason.
  - With O(compare_to), every figure's change and a verdict from a two-sided Mann-Whitney U test over the repeats
    (better, worse, no significant difference, or no verdict possible with too few repeats); only significant
    changes are coloured.
  - With O(gate), a Gate section with every check, passed or missed; the module itself succeeds, and
    RV(summary.gate.missed) lists the misses, one line each, for the playbook to fail on.
  - A result measured on a busy host (summary.json's C(host_load.busy)) is marked in its status and under its host's
    table; with O(gate_busy=refuse) the gate does not judge it and RV(summary.gate.refused) has a line for it.
  - C(report.json) holds RV(summary), for C(playbooks/history.yml) to show each run's gate.
  - C(gate.junit.xml) is the gate as JUnit XML for a CI system (schemas/junit.xsd), with a test case per host (failed
    when the host failed) and per host, scheduler, gated figure and threshold (failed with the value, the limit and
    the verdict; skipped when O(gate_busy=refuse) refused the result). See docs/ci-and-python.md.
  - C(metrics.prom) holds every number of the run's C(summary.json) files as OpenMetrics gauges, labelled with the
    run, host, scheduler, repeat, scenario, runtime and versions, for Prometheus (see docs/ci-and-python.md).
  - Files are only rewritten when their content changes, so a second run on the same results reports no change.
  - Runs on the controller; needs the Python C(matplotlib) package there.
version_added: "0.1.0"
options:
  run_dir:
    description: The run directory, C(results/<run_id>).
    type: path
    required: true
  compare_to:
    description:
      - An earlier run to compare with; every number then shows its change against that run.
      - Either a directory or a run id, which is looked up next to O(run_dir).
    type: str
  output_dir:
    description: Where the report is written; O(run_dir) when omitted.
    type: path
  gate:
    description:
      - Thresholds per scheduler and figure, the playbooks' C(bench_gate); see docs/reading-the-report.md, "A regression gate".
      - A mapping of a scheduler (or C(*) for every scheduler) to C({figure -> threshold}), a threshold being
        C(>= N), C(<= N), C(worse_by <= N%) or C(worse_by <= N% significant) (the last two need O(compare_to)),
        or a list of them; or that mapping as JSON text.
    type: raw
  gate_busy:
    description:
      - The playbooks' C(bench_gate_busy). V(judge) checks a result measured on a busy host as any other; V(refuse)
        checks none of its thresholds and lists it in RV(summary.gate.refused) instead (the earlier run's busy
        result too, for a relative threshold).
    type: str
    choices: [judge, refuse]
    default: judge
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Write the report of a run
  bench_report:
    run_dir: results/20261129T211301Z

- name: Write the report with the change against an earlier run
  bench_report:
    run_dir: results/20261130T090000Z
    compare_to: 20261129T211301Z
  register: report

- name: Show where the report is
  ansible.builtin.debug:
    msg: "{{ report.report_html }}"

- name: Write the report and check a gate against an earlier run
  bench_report:
    run_dir: results/20261130T090000Z
    compare_to: 20261129T211301Z
    gate:
      "*": {latency_p99_ms: "<= 800", makespan_s: "worse_by <= 10% significant"}
      default: {throughput_pods_per_s: ">= 20"}
  register: report

- name: Fail when a figure missed the gate
  ansible.builtin.fail:
    msg: "{{ report.summary.gate.missed | join('\n') }}"
  when: report.summary.gate.missed | length > 0
"""

RETURN = r"""
report_md:
  description: Path of the Markdown report.
  returned: success
  type: str
  sample: /home/bench/kube-sched-bench/results/20261129T211301Z/report.md
report_html:
  description: Path of the HTML report; its images are referenced relative to it.
  returned: success
  type: str
report_csv:
  description: Path of the CSV with one row per host and scheduler.
  returned: success
  type: str
charts:
  description: Paths of the PNG charts.
  returned: success
  type: list
  elements: str
gate_junit:
  description: Path of C(gate.junit.xml), the gate's checks as JUnit XML.
  returned: success
  type: str
metrics_prom:
  description: Path of C(metrics.prom), every number of the run's summaries as OpenMetrics gauges.
  returned: success
  type: str
files:
  description: Every path the report consists of (written, or that would be written in check mode).
  returned: success
  type: list
  elements: str
summary:
  description: What the report covers.
  returned: success
  type: dict
  sample:
    run_id: "20261129T211301Z"
    hosts: 3
    failed_hosts: [lab-centos7]
    schedulers: [default]
    max_repeats: 3
    not_complete: [lab-centos7/default]
    compared_to: null
    statistics: {interval: percentile bootstrap of the median over the repeats, confidence: 0.95, min_repeats: 3,
                 resamples: 2000, seed: 14, test: "Mann-Whitney U, two-sided", alpha: 0.05}
    gate:
      checks: 2
      passed: 1
      missed:
        - host: lab-01
          scheduler: default
          figure: latency_p99_ms
          value: 912.0
          previous: null
          threshold: "<= 800"
          passed: false
          why: ""
          line: "gate missed: host lab-01, scheduler default, latency_p99_ms = 912, threshold <= 800"
      refused: []
      verdict: missed
  contains:
    statistics:
      description: How intervals and verdicts were computed, with the bootstrap's seed.
      type: dict
    gate:
      description:
        - The gate's outcome, null without O(gate) - the number of checks, how many passed, and each missed check
          with its host, scheduler, figure, value, earlier value, threshold, why and one C(line) saying all that.
        - C(refused) - each result not judged because it was measured on a busy host (with O(gate_busy=refuse)), with
          its host, scheduler, the run it was measured in, how busy, its other processes' share of the CPUs and one
          C(line).
        - C(verdict) - passed, missed, refused, or missed and refused.
      type: dict
"""
