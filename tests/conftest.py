"""Shared test set-up: make the project's pure Python importable, and give each test its speed class."""
import os
import pathlib
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# tests/ itself: the test infrastructure the tests share with the test machines' tools (tests/infra, imported as
# infra.<module>), as pytest's default import mode also has it. library/ comes before action_plugins/: a module
# and its action have the same name, and the tests import the module.
for sub in ("module_utils", "filter_plugins", "action_plugins", "library", "callback_plugins", "tests"):
    path = os.path.join(ROOT, sub)
    if path not in sys.path:
        sys.path.insert(0, path)

# Modules in library/ import the project's module_utils as ansible.module_utils.<name>,
# as Ansible ships them; let the unit tests import those modules the same way.
import importlib  # noqa: E402 - after sys.path has the project's directories
import pkgutil  # noqa: E402 - after sys.path has the project's directories

_pending = [info.name for info in pkgutil.iter_modules([os.path.join(ROOT, "module_utils")])]
while _pending:  # a module imports its siblings as ansible.module_utils.<name>: those first
    _left = []
    for _name in _pending:
        try:
            sys.modules.setdefault("ansible.module_utils." + _name, importlib.import_module(_name))
        except ImportError:
            sys.modules.pop(_name, None)
            _left.append(_name)
    if len(_left) == len(_pending):
        raise ImportError("module_utils that cannot be imported: %s" % ", ".join(_left))
    _pending = _left


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
