# -*- coding: utf-8 -*-
"""The bench_report action's work on the controller (action_plugins/bench_report.py; its documentation:
library/bench_report.py): read a run, build its report, write what changed."""
from __future__ import annotations

import json
import os
import sys
import traceback

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import differs, write_atomically
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.actions.controller_task import TaskError
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.build import build_report
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.gate import BUSY_CHOICES, JUDGE, parse_gate
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.junit import JUNIT_FILE, render_junit
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.openmetrics import METRICS_FILE, render_openmetrics
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.render import (
    render_csv,
    render_html,
    render_markdown,
    render_png,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.run import CHARTS_DIR, REPORT_SUMMARY, find_run, load_run

try:
    import matplotlib  # noqa: F401 - only checked here; report.render imports it when drawing
    HAS_MATPLOTLIB = True
    MATPLOTLIB_IMPORT_ERROR = None
except ImportError:
    HAS_MATPLOTLIB = False
    MATPLOTLIB_IMPORT_ERROR = traceback.format_exc()

ARGUMENT_SPEC = dict(
    run_dir=dict(type="path", required=True),
    compare_to=dict(type="str"),
    output_dir=dict(type="path"),
    # Checked by report.gate.parse_gate, the one rule for the playbooks' check and this action.
    gate=dict(type="raw"),
    gate_busy=dict(type="str", choices=list(BUSY_CHOICES), default=JUDGE),
)


def report_contents(report):
    """{relative path: bytes} of every file of the report."""
    contents = {
        "report.md": render_markdown(report).encode("utf-8"),
        "report.html": render_html(report).encode("utf-8"),
        "report.csv": render_csv(report).encode("utf-8"),
        REPORT_SUMMARY: (json.dumps(report.summary, indent=2, sort_keys=True) + "\n").encode("utf-8"),
        JUNIT_FILE: render_junit(report.run, report.gate, report.gate_checks, report.gate_refused).encode("utf-8"),
        METRICS_FILE: render_openmetrics(report.run).encode("utf-8"),
    }
    for chart in report.charts:
        contents[os.path.join(CHARTS_DIR, chart.file_name)] = render_png(chart)
    return contents


def write_report(params, check_mode):
    """Build and write the report that ``params`` (ARGUMENT_SPEC) ask for: the action's result, or TaskError."""
    if not HAS_MATPLOTLIB:
        raise TaskError("Failed to import the required Python library (matplotlib) on the controller's Python %s"
                        % sys.executable, MATPLOTLIB_IMPORT_ERROR)
    run_dir = os.path.abspath(params["run_dir"])
    output_dir = os.path.abspath(params["output_dir"] or run_dir)
    if not os.path.isdir(run_dir):
        raise TaskError("run_dir %s is not a directory: give results/<run_id> of an earlier run" % run_dir)

    previous_dir = None
    if params["compare_to"]:
        previous_dir = find_run(params["compare_to"], os.path.dirname(run_dir))
        if previous_dir is None:
            raise TaskError("compare_to %s is neither a directory nor a run id in %s"
                            % (params["compare_to"], os.path.dirname(run_dir)))
        if previous_dir == run_dir:
            raise TaskError("compare_to names the run itself (%s): give an earlier run" % run_dir)

    gate, problems = parse_gate(params["gate"], "gate", previous_dir is not None, "compare_to")
    if problems:
        raise TaskError(problems[0])

    try:
        run = load_run(run_dir)
        previous = load_run(previous_dir) if previous_dir else None
    except (OSError, ValueError) as exc:
        raise TaskError("cannot read the results: %s" % exc) from exc

    report = build_report(run, previous, gate, params["gate_busy"])
    try:
        contents = report_contents(report)
    except Exception as exc:  # noqa: BLE001 - a chart matplotlib cannot draw must not hide the tables
        raise TaskError("could not draw the report's charts: %s" % exc, traceback.format_exc()) from exc
    paths = {name: os.path.join(output_dir, name) for name in contents}
    changed_paths = [paths[name] for name in contents if differs(paths[name], contents[name])]
    if not check_mode:
        try:
            for name, content in contents.items():
                if paths[name] in changed_paths:
                    write_atomically(paths[name], content, make_dirs=True)
        except OSError as exc:
            raise TaskError("could not write the report into %s: %s" % (output_dir, exc)) from exc

    return dict(
        changed=bool(changed_paths),
        report_md=paths["report.md"],
        report_html=paths["report.html"],
        report_csv=paths["report.csv"],
        gate_junit=paths[JUNIT_FILE],
        metrics_prom=paths[METRICS_FILE],
        charts=[path for name, path in paths.items() if name.startswith(CHARTS_DIR + os.sep)],
        files=list(paths.values()),
        summary=report.summary,
    )
