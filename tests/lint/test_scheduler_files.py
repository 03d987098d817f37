"""A scheduler is its own file(s): no shared code of the collection branches or keys on a scheduler's name, so that
a new scheduler adds its module under module_utils/schedulers/ (its descriptor and its workload forms) and its own
task files, and touches no shared file (docs/adding-a-scheduler.md).

What counts, read from the code (the AST, so comments and docstrings are free to name schedulers):
- any string literal that is exactly the name of a scheduler other than the default one ("volcano" in a comparison,
  a tuple, a dict key, an index, a call: all ways to branch or key on it);
- "default", which is also a word of Kubernetes (a namespace, a flavor, a tenant), only where it stands for the
  scheduler: compared with something named after schedulers (``scheduler != "default"``), beside another scheduler's
  name in a tuple, list, set or dict, or as the value, the key, the index or the argument of something named after
  schedulers (``scheduler = "default"``, ``SCHEDULER_COLOURS = {"default": ...}``, ``descriptors.get("default")``,
  ``forms["default"]``, ``Target(scheduler="default")``).

The schedulers' names come from their descriptors, so a sixth scheduler is checked as soon as it exists."""
import ast
import glob
import os

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGINS = os.path.join(ROOT, "collections", "ansible_collections", "kube_sched_bench", "core", "plugins")
# The schedulers' own package, where their names belong; and the plugin directories, which are not shared code
# either (none is in the collection today: the project's are at its top, outside this check).
OWN = ("module_utils/schedulers/", "filter_plugins/", "library/", "action_plugins/")
SHARED = sorted(path for path in glob.glob(os.path.join(PLUGINS, "**", "*.py"), recursive=True)
                if not any(part in os.path.relpath(path, PLUGINS).replace(os.sep, "/") + "/" for part in OWN))
BASELINE = "default"
# Names that say an expression is about schedulers: a comparison with it, or a key into it, is a branch on one.
SCHEDULERISH = ("sched", "descriptor", "forms")


def _schedulerish(node):
    return node is not None and any(word in ast.unparse(node).lower() for word in SCHEDULERISH)


def _literal(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _literals(node):
    """The string literals of a literal tuple, list or set, or of one string literal."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [value for value in map(_literal, node.elts) if value is not None]
    value = _literal(node)
    return [] if value is None else [value]


def _docstrings(tree):
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr) and _literal(node.value) is not None}


def _parents(tree):
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _baseline_branch(node, parents, others):
    """Whether a "default" literal (``node``; ``parents``: each node's parent) stands for the default scheduler."""
    parent = parents.get(node)
    if isinstance(parent, (ast.Tuple, ast.List, ast.Set)):
        return bool(others & set(_literals(parent))) or _baseline_branch(parent, parents, others)
    if isinstance(parent, ast.Compare):
        return any(_schedulerish(operand) for operand in [parent.left] + parent.comparators if operand is not node)
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        return any(_schedulerish(target) for target in getattr(parent, "targets", None) or [parent.target])
    if isinstance(parent, ast.keyword):
        return any(word in (parent.arg or "").lower() for word in SCHEDULERISH)
    if isinstance(parent, ast.Dict) and node in parent.keys:
        return bool(others & {_literal(key) for key in parent.keys}) or _baseline_branch(parent, parents, others)
    if isinstance(parent, ast.Subscript) and parent.slice is node:
        return _schedulerish(parent.value)
    if isinstance(parent, ast.Call) and node in parent.args:
        return _schedulerish(parent.func)
    return False


def scheduler_branches(source, names=schedulers.NAMES, path="<source>"):
    """Where ``source`` compares or keys on a scheduler's name literal: "line N: ...", one per place."""
    tree = ast.parse(source, path)
    docstrings = _docstrings(tree)
    parents = _parents(tree)
    others = set(names) - {BASELINE}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in others:
            found.append((node.value.lineno, "keyword %s=" % node.arg))
        value = _literal(node)
        if value is None or id(node) in docstrings:
            continue
        if value in others or (value == BASELINE and BASELINE in names
                               and _baseline_branch(node, parents, others)):
            found.append((node.lineno, ast.unparse(parents.get(node, node))[:100]))
    return ["line %d: %s" % place for place in sorted(found)]


@pytest.mark.parametrize("path", SHARED, ids=lambda path: os.path.relpath(path, ROOT))
def test_shared_code_names_no_scheduler(path):
    with open(path, encoding="utf-8") as handle:
        assert scheduler_branches(handle.read(), path=path) == []


def test_the_check_sees_the_old_branches():
    """The forms shared code used to have (module_utils/loadtest/workloads.py, plugin_utils/history/load.py)."""
    old = '''
CUSTOM_APIS = {"volcano": ("batch.volcano.sh", "v1alpha1", "jobs")}
def template(scheduler, target):
    if scheduler in ("default", "kueue"):
        return base(priority_class=priority_class if scheduler == "default" else None)
    if target.scheduler == "volcano":
        return volcano()
    return descriptors.get("coscheduling")
def describe(versions, scheduler):
    if versions.get("scheduler") and scheduler != "default":
        return 1
COLOURS_BY_SCHEDULER = {"default": "grey"}
FEATURES = {"default": (), "yunikorn": ("gang",)}
SCHEDULER_ORDER = ["default"]
def queue(params):
    return descriptors.get("default")["queue"] or forms["default"] or dict(kueue=1) or Target(scheduler="default")
'''
    found = scheduler_branches(old)
    assert [line.split(":")[0] for line in found] == [
        "line 2", "line 4", "line 4", "line 5", "line 6", "line 8", "line 10", "line 12", "line 13", "line 13",
        "line 14", "line 16", "line 16", "line 16", "line 16"], found


def test_the_check_leaves_the_other_defaults_alone():
    """"default" as a namespace, a flavor, a tenant or a value: no scheduler in sight."""
    fine = '''
"""The default scheduler and Kueue, named in a docstring."""
FLAVOR = "default"
TENANTS = {"default": 1.0}
def namespace(meta, core, name):
    core.read_namespaced_service_account("default", name)
    if meta.get("namespace", "default") == "default":
        return {"tenants": {"default": 1.0}, "name": "kueue-like"}
    return meta.get("namespace") or "default"
'''
    assert scheduler_branches(fine) == []


def test_a_new_scheduler_is_checked_by_its_name():
    assert scheduler_branches('if scheduler == "slurm": pass\n', names=schedulers.NAMES + ("slurm",)) == [
        'line 1: scheduler == \'slurm\'']


@pytest.mark.parametrize("name", schedulers.NAMES)
def test_each_schedulers_module_has_the_forms_it_needs(name):
    assert schedulers.form_problems(name) == []


def test_the_generic_builders_know_no_scheduler():
    """module_utils/objects/builders.py is what every scheduler's forms build on: it imports no scheduler."""
    path = os.path.join(PLUGINS, "module_utils", "objects", "builders.py")
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    assert [name for name in imported if "schedulers" in name or "workloads" in name] == []


def test_no_filter_is_named_after_a_scheduler():
    """A filter serves every scheduler (scheduler_queues, scheduler_descriptor), through its module."""
    files = glob.glob(os.path.join(ROOT, "filter_plugins", "*.py")) + glob.glob(os.path.join(ROOT, "roles", "*",
                                                                                           "filter_plugins", "*.py"))
    named = [os.path.relpath(path, ROOT) for path in files for name in schedulers.NAMES if name != BASELINE
             and name in os.path.basename(path)]
    assert files and named == []
