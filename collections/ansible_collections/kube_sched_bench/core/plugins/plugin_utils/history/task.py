# -*- coding: utf-8 -*-
"""The bench_history action's work on the controller (action_plugins/bench_history.py; its documentation:
library/bench_history.py): read every run of a results directory, write index.html and index.csv if changed."""
from __future__ import annotations

import os

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import differs, write_atomically
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.actions.controller_task import TaskError
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.load import INDEX_FILES, load_history
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.render import render_csv, render_html

ARGUMENT_SPEC = dict(results_dir=dict(type="path", required=True))


def write_history(params, check_mode):
    """Write the history that ``params`` (ARGUMENT_SPEC) ask for: the action's result, or TaskError."""
    results_dir = os.path.abspath(params["results_dir"])
    if not os.path.isdir(results_dir):
        raise TaskError("results_dir %s is not a directory: give the directory the runs are in (bench_results_dir)"
                        % results_dir)
    try:
        history = load_history(results_dir)
    except OSError as exc:
        raise TaskError("cannot read the results: %s" % exc) from exc
    page, table = INDEX_FILES
    contents = {
        page: render_html(history, "Benchmark history of %s" % os.path.basename(results_dir)).encode("utf-8"),
        table: render_csv(history).encode("utf-8"),
    }
    paths = {name: os.path.join(results_dir, name) for name in contents}
    changed = [name for name in contents if differs(paths[name], contents[name])]
    if not check_mode:
        try:
            for name in changed:
                write_atomically(paths[name], contents[name])
        except OSError as exc:
            raise TaskError("could not write into %s: %s" % (results_dir, exc)) from exc
    return dict(changed=bool(changed), index_html=paths[page], index_csv=paths[table], runs=len(history.runs),
                lines=len(history.series), skipped=["%s: %s" % pair for pair in history.skipped])
