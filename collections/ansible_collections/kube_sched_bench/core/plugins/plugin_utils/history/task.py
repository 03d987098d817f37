# -*- coding: utf-8 -*-
"""The bench_history action's work on the controller (action_plugins/bench_history.py; its documentation:
library/bench_history.py): read every run of a results directory, write history.sqlite, index.html (rendered from
that database) and index.csv if changed."""
from __future__ import annotations

import os
import tempfile

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import differs, write_atomically
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.actions.controller_task import TaskError
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.database import DATABASE_FILE, database_bytes
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.database_history import newer_database, read_history
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.load import INDEX_FILES, load_history
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.render import render_csv, render_html

ARGUMENT_SPEC = dict(results_dir=dict(type="path", required=True))


def history_of_database(data, skipped):
    """The History that history.sqlite's bytes ``data`` hold (read from a temporary copy)."""
    with tempfile.NamedTemporaryFile(suffix=".sqlite") as copy:
        copy.write(data)
        copy.flush()
        return read_history(copy.name, skipped)


def directory_bytes(path):
    """What the files under ``path`` weigh, in bytes: the controller's results, which the toolkit never prunes."""
    total = 0
    for top, _, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(top, name)).st_size
            except OSError:
                pass   # removed meanwhile
    return total


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
    database = database_bytes(history)
    title = "Benchmark history of %s" % os.path.basename(results_dir)
    contents = {
        DATABASE_FILE: database,
        page: render_html(history_of_database(database, history.skipped), title).encode("utf-8"),
        table: render_csv(history).encode("utf-8"),
    }
    paths = {name: os.path.join(results_dir, name) for name in contents}
    # A database a newer toolkit wrote is never read: this one is rebuilt from the result files, and says so.
    replaced = newer_database(paths[DATABASE_FILE])
    changed = [name for name in contents if differs(paths[name], contents[name])]
    if not check_mode:
        try:
            for name in changed:
                write_atomically(paths[name], contents[name])
        except OSError as exc:
            raise TaskError("could not write into %s: %s" % (results_dir, exc)) from exc
    return dict(changed=bool(changed), index_html=paths[page], index_csv=paths[table],
                history_sqlite=paths[DATABASE_FILE], runs=len(history.runs),
                lines=len(history.series), skipped=["%s: %s" % pair for pair in history.skipped],
                rebuilt=None if replaced is None else "%s was %s: rebuilt from the result files" % (DATABASE_FILE, replaced),
                results_bytes=directory_bytes(results_dir))
