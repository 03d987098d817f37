"""The layout's rules, read from the code: one import spelling for the project's shared code, code shipped to hosts
(module_utils) never needing controller code (plugin_utils), small pieces, and one definition per filter name."""
import ast
import glob
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLLECTION = os.path.join(ROOT, "collections", "ansible_collections", "kube_sched_bench", "core")
PREFIX = "ansible_collections.kube_sched_bench.core.plugins."
FILTER_FILES = sorted(glob.glob(os.path.join(ROOT, "filter_plugins", "*.py"))
                      + glob.glob(os.path.join(ROOT, "roles", "*", "filter_plugins", "*.py")))
PRODUCT = sorted(FILTER_FILES
                 + glob.glob(os.path.join(ROOT, "library", "*.py"))
                 + glob.glob(os.path.join(ROOT, "action_plugins", "*.py"))
                 + glob.glob(os.path.join(ROOT, "callback_plugins", "*.py"))
                 + glob.glob(os.path.join(ROOT, "doc_fragments", "*.py"))
                 + glob.glob(os.path.join(COLLECTION, "plugins", "**", "*.py"), recursive=True))
# Every name a project import could use without the collection's spelling: the shared modules' own names.
SHARED = {os.path.splitext(os.path.basename(path))[0]
          for path in glob.glob(os.path.join(COLLECTION, "plugins", "*_utils", "**", "*.py"), recursive=True)} - {"__init__"}
MAX_FILE_LINES, MAX_FUNCTION_LINES = 500, 60


def _rel(path):
    return os.path.relpath(path, ROOT)


def _tree(path):
    with open(path, encoding="utf-8") as handle:
        return ast.parse(handle.read(), path)


def _imported(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node, node.module or ""


def spelling_problems(path):
    """How a file imports the project's shared code other than by the collection's name, one line each."""
    tree = _tree(path)
    wrong = []
    for node, name in _imported(tree):
        first = name.split(".")[0]
        if name.startswith("ansible.module_utils.") and name.split(".")[2] not in ("basic", "common", "six", "urls"):
            wrong.append("line %d: %s (the project's code is %s...)" % (node.lineno, name, PREFIX))
        elif first in SHARED:
            wrong.append("line %d: bare import of %s" % (node.lineno, name))
    source = ast.unparse(tree)
    for pattern in (r"\bsys\.path\.(insert|append|extend)\b", r"spec_from_file_location", r"__path__\.extend"):
        if re.search(pattern, source):
            wrong.append("uses %s" % pattern)
    return wrong


@pytest.mark.parametrize("path", PRODUCT, ids=_rel)
def test_project_code_is_imported_one_way(path):
    assert spelling_problems(path) == []


def test_the_spelling_check_sees_each_old_spelling(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nsys.path.insert(0, 'x')\nimport workloads\n"
                   "from ansible.module_utils.bench_atomic import x\n")
    assert len(spelling_problems(str(bad))) == 3


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(COLLECTION, "plugins", "module_utils", "**", "*.py"),
                                               recursive=True)), ids=_rel)
def test_code_shipped_to_hosts_needs_no_controller_code(path):
    needs = [name for _, name in _imported(_tree(path)) if name.startswith(PREFIX + "plugin_utils")
             or name.startswith("ansible.plugins") or name.startswith("ansible.errors")]
    assert needs == []


@pytest.mark.parametrize("path", PRODUCT, ids=_rel)
def test_pieces_are_small(path):
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().count("\n")
    assert lines <= MAX_FILE_LINES, "%d lines" % lines
    long = ["%s (%d lines)" % (node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(_tree(path))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert long == []


def _filter_names(path):
    """The names a filter file's FilterModule.filters() returns (its dict literal's keys)."""
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.FunctionDef) and node.name == "filters":
            for inner in ast.walk(node):
                if isinstance(inner, ast.Dict):
                    return [key.value for key in inner.keys if isinstance(key, ast.Constant)]
    return []


def test_each_filter_name_is_defined_once():
    where = {}
    for path in FILTER_FILES:
        for name in _filter_names(path):
            where.setdefault(name, []).append(_rel(path))
    assert where, "no filter found: the reader of filters() is broken"
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}


def test_test_files_have_names_of_their_own():
    """pytest imports test files by their base name (rootdir, no packages): two of the same name in two directories
    stop the session that collects both."""
    names = {}
    for path in glob.glob(os.path.join(ROOT, "tests", "**", "test_*.py"), recursive=True):
        names.setdefault(os.path.basename(path), []).append(_rel(path))
    assert [paths for paths in names.values() if len(paths) > 1] == []
