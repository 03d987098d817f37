"""A runtime is its own files: no play, role or shared Python compares or keys on a runtime's name, so that a new
runtime adds its descriptor (module_utils/runtimes/<name>.py) and its task files (playbooks/tasks/runtimes/<name>/)
and touches no shared file but the import that lists it (docs/architecture.md#adding-a-runtime). What a runtime can
do is asked of its descriptor: ``bench_runtime | runtime_has('holds_backlog')``, ``runtimes.with_capability(...)``.

What counts, read from the code, not the text (comments and docstrings are free to name runtimes):
- in the YAML of bench.yml, playbooks/ and roles/ (each string's Jinja, and the bare expressions of when, that,
  changed_when, failed_when and until) and in their .j2 templates: a runtime's name compared (``== 'kind'``,
  ``'kind' in [...]``, ``in ['binary', 'kind']``), tested (``is equalto('kind')``), passed to a filter or a call
  (``cluster_record_problems('kind')``), except where the filter takes an attribute or key name
  (``selectattr('kind', ...)``), or given as a runtime in a mapping (``{'runtime': 'kind'}``); and a YAML list of
  nothing but runtime names (``choices: [binary, kind, external]``);
- in the Python of the collection, library/, filter_plugins/, action_plugins/ and callback_plugins/: a runtime's name
  compared, a tuple, list or set of nothing but runtime names (a hand-written list of runtimes: two or more, or one
  given to something named after runtimes), a mapping keyed by two runtimes or more, or the value, argument or
  index of something named after runtimes (``runtime="binary"``, ``record_problems(record, "kind")``,
  ``DESCRIPTORS["kind"]``).
A runtime's own files may name it: playbooks/tasks/runtimes/<name>/ and module_utils/runtimes/<name>.py. A
scheduler's descriptor says which runtimes deploy it (its "runtimes" value), checked against the runtimes' names by
schedulers.problems. "kind" is also a word of Kubernetes (``doc.get("kind") == "Job"``): only the places above count.

The runtimes' names come from their descriptors, so a fourth runtime is checked as soon as it exists."""
import ast
import glob
import os
import re
import warnings

import jinja2
import pytest
import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils import runtimes
from jinja2 import nodes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGINS = os.path.join(ROOT, "collections", "ansible_collections", "kube_sched_bench", "core", "plugins")
YAML_FILES = sorted([os.path.join(ROOT, "bench.yml")]
                    + [path for pattern in ("playbooks/**/*.yml", "roles/**/*.yml", "playbooks/**/*.j2", "roles/**/*.j2")
                       for path in glob.glob(os.path.join(ROOT, pattern), recursive=True)])
PYTHON_FILES = sorted(glob.glob(os.path.join(PLUGINS, "**", "*.py"), recursive=True)
                      + [path for folder in ("library", "filter_plugins", "action_plugins", "callback_plugins")
                         for path in glob.glob(os.path.join(ROOT, folder, "*.py"))])
# The keys whose values Ansible reads as bare Jinja expressions.
CONDITIONS = ("when", "that", "changed_when", "failed_when", "until")
# Filters and tests whose string arguments are attribute or key names, not values.
ATTRIBUTE_TAKERS = ("selectattr", "rejectattr", "map", "attr", "sort", "groupby", "sum", "unique", "min", "max",
                    "dict2items", "items2dict", "get", "json_query", "extract")
# Names that say an expression is about runtimes: a runtime's name as its value, argument or index keys on one.
RUNTIMEISH = ("runtime", "record")
JINJA = jinja2.Environment(extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"])


def _own(path):
    """The runtime whose own file ``path`` is, or None."""
    rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
    match = re.match(r"playbooks/tasks/runtimes/([^/]+)/", rel) or re.search(r"module_utils/runtimes/([^/]+)\.py$", rel)
    return match.group(1) if match else None


# -- Jinja --

def _const_names(node, names):
    if isinstance(node, nodes.Const) and node.value in names:
        return [node.value]
    if isinstance(node, (nodes.List, nodes.Tuple)):
        return [item.value for item in node.items if isinstance(item, nodes.Const) and item.value in names]
    return []


def _jinja_places(tree, names):
    for node in tree.find_all((nodes.Compare, nodes.Filter, nodes.Test, nodes.Call, nodes.Pair)):
        if isinstance(node, nodes.Compare):
            for operand in [node.expr] + [op.expr for op in node.ops]:
                yield from _const_names(operand, names)
        elif isinstance(node, nodes.Pair):
            key = node.key.value if isinstance(node.key, nodes.Const) else ""
            if any(word in str(key) for word in RUNTIMEISH):
                yield from _const_names(node.value, names)
        else:
            callee = node.name if isinstance(node, (nodes.Filter, nodes.Test)) else getattr(node.node, "name", "")
            if callee in ATTRIBUTE_TAKERS:
                continue
            for argument in list(node.args) + [keyword.value for keyword in node.kwargs]:
                yield from _const_names(argument, names)


def jinja_branches(template, names=runtimes.NAMES, own=None):
    """The runtime names ``template`` (Jinja text) compares or passes on, other than ``own``'s."""
    names = set(names) - {own}
    try:
        with warnings.catch_warnings():  # a regular expression's backslashes in a Jinja string
            warnings.simplefilter("ignore", DeprecationWarning)
            tree = JINJA.parse(template)
    except jinja2.TemplateSyntaxError:
        # Not Jinja that Jinja alone reads: the plain comparisons, from the text.
        alternatives = "|".join(re.escape(name) for name in sorted(names))
        pattern = r"""(==|!=|\bin)\s*[\[(]?[^\])]*?['"](%s)['"]|['"](%s)['"]\s*(==|!=|\bin\b)""" % (
            alternatives, alternatives)
        return [next(group for group in match.groups()[1:3] if group) for match in re.finditer(pattern, template)]
    return list(_jinja_places(tree, names))


def _strings(data, key=None):
    """(key, value) for every string of a YAML document, a condition's bare expression in braces, and every list of
    strings (an argument spec's choices) as a list."""
    if isinstance(data, dict):
        for child_key, value in data.items():
            yield from _strings(value, child_key)
    elif isinstance(data, list):
        if data and all(isinstance(item, str) for item in data):
            yield key, data
        for item in data:
            yield from _strings(item, key)
    elif isinstance(data, str):
        yield key, ("{{ %s }}" % data if key in CONDITIONS and "{{" not in data else data)


class _Loader(yaml.SafeLoader):
    """Ansible's YAML: its tags (!unsafe, !vault) read as plain strings."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: loader.construct_scalar(node)
                              if isinstance(node, yaml.ScalarNode) else None)


def yaml_branches(text, names=runtimes.NAMES, own=None, template=False):
    """"<key>: <name>" for every runtime name a YAML file (or, with ``template``, a .j2 file) compares."""
    if template:
        return ["template: %s" % name for name in jinja_branches(text, names, own)]
    found = []
    for document in yaml.load_all(text, Loader=_Loader):
        for key, value in _strings(document):
            if isinstance(value, str):
                found += ["%s: %s" % (key, name) for name in jinja_branches(value, names, own)]
            elif len(value) > 1 and set(value) <= set(names) - {own}:
                found.append("%s: %s" % (key, ", ".join(value)))
    return found


# -- Python --

def _literal(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _runtimeish(node):
    return node is not None and any(word in ast.unparse(node).lower() for word in RUNTIMEISH)


def _python_places(tree, names):
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in [node.left] + node.comparators:
                values = [_literal(item) for item in getattr(operand, "elts", [operand])]
                yield from ((node.lineno, value) for value in values if value in names)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
            values = [_literal(item) for item in node.elts]
            parent = parents.get(node)
            declared = isinstance(parent, ast.Dict) and any(
                value is node and _literal(key) == "runtimes" for key, value in zip(parent.keys, parent.values))
            named = isinstance(parent, ast.Assign) and any(_runtimeish(target) for target in parent.targets)
            if all(value in names for value in values) and not declared and (len(values) > 1 or named):
                yield node.lineno, ", ".join(values)
        elif isinstance(node, ast.Dict):
            keys = [_literal(key) for key in node.keys if _literal(key) in names]
            if len(keys) >= 2:
                yield node.lineno, ", ".join(keys)
        elif isinstance(node, ast.Call) and _runtimeish(node.func):
            yield from ((node.lineno, _literal(arg)) for arg in node.args if _literal(arg) in names)
        elif isinstance(node, ast.Subscript) and _literal(node.slice) in names and _runtimeish(node.value):
            yield node.lineno, _literal(node.slice)
        elif isinstance(node, ast.keyword) and "runtime" in (node.arg or "") and _literal(node.value) in names:
            yield node.value.lineno, _literal(node.value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and _literal(node.value) in names:
            if any(_runtimeish(target) for target in getattr(node, "targets", None) or [node.target]):
                yield node.lineno, _literal(node.value)
        elif isinstance(node, ast.arguments):
            pairs = list(zip(node.args[len(node.args) - len(node.defaults):], node.defaults))
            pairs += [(arg, default) for arg, default in zip(node.kwonlyargs, node.kw_defaults) if default]
            yield from ((default.lineno, _literal(default)) for arg, default in pairs
                        if "runtime" in arg.arg and _literal(default) in names)


def python_branches(source, names=runtimes.NAMES, own=None, path="<source>"):
    """"line N: <name>" for every place ``source`` compares or keys on a runtime's name other than ``own``'s."""
    places = sorted(set(_python_places(ast.parse(source, path), set(names) - {own})))
    return ["line %d: %s" % place for place in places]


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda path: os.path.relpath(path, ROOT))
def test_plays_and_roles_name_no_runtime(path):
    with open(path, encoding="utf-8") as handle:
        assert yaml_branches(handle.read(), own=_own(path), template=path.endswith(".j2")) == []


@pytest.mark.parametrize("path", PYTHON_FILES, ids=lambda path: os.path.relpath(path, ROOT))
def test_shared_python_names_no_runtime(path):
    with open(path, encoding="utf-8") as handle:
        assert python_branches(handle.read(), own=_own(path), path=path) == []


def test_the_check_sees_the_old_branches_in_yaml():
    """The forms the plays and roles used to have (benchmark.yml, teardown.yml, validate.yml, lock.yml, roles.yml,
    the runtimes' starts)."""
    old = """
- name: Prepare the host for the kind runtime
  ansible.builtin.include_tasks: tasks/prepare-kind.yml
  when: bench_runtime == 'kind'
- name: Install kubectl
  when:
    - bench_runtime == 'binary'
    - bench_keep_cluster | bool
- name: Guard
  bench_run_lock:
    guard_commands: "{{ [['kind', 'delete']] if bench_runtime == 'kind' else [] }}"
- name: Check the record
  ansible.builtin.assert:
    that: bench_cluster | cluster_record_problems('external') | length == 0
- name: Describe the cluster
  ansible.builtin.set_fact:
    bench_cluster: "{{ kind_cluster_info | combine({'runtime': 'kind', 'owned': true}) }}"
- name: Many
  when: bench_runtime in ['kind', 'external'] or bench_runtime is equalto('binary')
  vars:
    binary_cluster_name: "{{ 'bench' if bench_runtime == 'binary' else 'bench-kwok' }}"
    spec: {type: str, choices: [binary, kind, external]}
"""
    assert yaml_branches(old) == ["when: kind", "when: binary", "guard_commands: kind", "that: external",
                                  "bench_cluster: kind", "when: kind", "when: external", "when: binary",
                                  "binary_cluster_name: binary", "choices: binary, kind, external"]
    assert yaml_branches("{% if bench_runtime != 'kind' %}x{% endif %}", template=True) == ["template: kind"]
    # A runtime's own files may name it, and no other.
    assert yaml_branches(old.split("- name: Many")[0], own="kind") == ["when: binary", "that: external"]


def test_the_check_sees_the_old_branches_in_python():
    """The forms shared code used to have (plugin_utils/preflight/disk_needs.py, plugin_utils/cluster/record.py,
    module_utils/schedulers/__init__.py, module_utils/loadtest/hold.py)."""
    old = '''
RUNTIMES = ("binary", "kind", "external")
HOLD_RUNTIMES = ("binary",)
def disk_needs(workload, runtime="binary"):
    if runtime != "external":
        on_kind = runtime == "kind"
    if descriptor.get("version") and "binary" in descriptor.get("runtimes", ()):
        return record_problems(record, "kind") or runtimes.get("kind") or DESCRIPTORS_BY_RUNTIME["binary"]
IMAGES = {"binary": (), "kind": ("node",)}
check(runtime="external")
'''
    assert python_branches(old) == [
        "line 2: binary, kind, external", "line 3: binary", "line 4: binary", "line 5: external", "line 6: kind",
        "line 7: binary", "line 8: binary", "line 8: kind", "line 9: binary, kind", "line 10: external"]


def test_the_check_leaves_kubernetes_kinds_alone():
    """"kind" as a Kubernetes object's field, the kind tool's version, a scheduler's runtimes: no branch on a
    runtime."""
    fine_python = '''
"""The kind runtime, named in a docstring: binary == kind."""
DESCRIPTOR = {"name": "volcano", "runtimes": ("binary", "kind")}
PINS = {"kind": "v0.27.0", "kubernetes": "v1.33.1"}
def workload(doc, program):
    if doc.get("kind") == "Job" or doc["kind"] in ("CronJob", "Job"):
        return {"apiVersion": "v1", "kind": "Pod", "File": "binary"}
    return program.get("binary")
'''
    fine_yaml = """
- name: Keep the Jobs  # bench_runtime == 'kind' in a comment
  ansible.builtin.set_fact:
    jobs: "{{ docs | selectattr('kind', 'equalto', 'Job') | map(attribute='kind') | list }}"
    version: "{{ bench_versions.kind }}"
  when: bench_runtime | runtime_has('prepare')
"""
    assert python_branches(fine_python) == []
    assert yaml_branches(fine_yaml) == []


def test_a_new_runtime_is_checked_by_its_name():
    names = runtimes.NAMES + ("k3d",)
    assert python_branches('if runtime == "k3d": pass\n', names=names) == ["line 1: k3d"]
    assert yaml_branches("when: bench_runtime == 'k3d'\n", names=names) == ["when: k3d"]
