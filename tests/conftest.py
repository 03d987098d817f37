"""Shared test set-up: each test's speed class. The project's shared code is the collection kube_sched_bench.core,
imported as the product imports it (the venv has collections/ on its path, `make setup`); the plugin and module
files the tests load by name come from pytest.ini's pythonpath."""
import os
import pathlib
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# The class of a test is its directory's (pytest.ini lists them); e2e and molecule tests are all slow.
SPEED_CLASSES = {"unit": ("unit",), "lint": ("lint",), "e2e": ("e2e", "slow"), "molecule": ("molecule", "slow")}


def pytest_collection_modifyitems(items):
    for item in items:
        directory = os.path.relpath(str(item.path), os.path.join(ROOT, "tests")).split(os.sep)[0]
        for marker in SPEED_CLASSES.get(directory, ()):
            item.add_marker(getattr(pytest.mark, marker))


# Where the suite's time goes: each file's total (set-up, call and tear-down of its tests), printed at the end of
# every session, longest first (the README's per-file table comes from these lines).
_FILE_SECONDS = {}


def pytest_runtest_logreport(report):
    path = report.nodeid.split("::", 1)[0]
    _FILE_SECONDS[path] = _FILE_SECONDS.get(path, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter):
    if not _FILE_SECONDS:
        return
    terminalreporter.section("seconds per test file")
    for path, seconds in sorted(_FILE_SECONDS.items(), key=lambda item: -item[1]):
        terminalreporter.write_line("%8.1f s  %s" % (seconds, path))
    terminalreporter.write_line("%8.1f s  in all" % sum(_FILE_SECONDS.values()))


def pytest_collection_finish(session):
    """Start the molecule scenarios' lanes as soon as the session knows its tests (tests/molecule/test_molecule.py),
    so that they run while the session's other tests do. Here, not in a tests/molecule/conftest.py: the e2e tests
    import their helpers as `conftest`, which a second conftest module in the same session would shadow."""
    if session.config.option.collectonly:
        return
    modules = {item.module for item in session.items if item.path.name == "test_molecule.py"}
    for module in modules:
        log_dir = pathlib.Path(tempfile.mkdtemp(prefix="sched-bench-molecule-"))
        session.config._molecule_lanes = module.start_lanes(session, log_dir)
