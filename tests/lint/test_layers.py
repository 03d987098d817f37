"""The shared packages stand in layers (docs/architecture.md#layers): a package of module_utils or plugin_utils
imports only the packages below it, so no two packages reach each other. module_utils as a whole lies below
plugin_utils. Read from the code's imports (the AST), so comments and docstrings may name any package."""
import ast
import glob
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGINS = os.path.join(ROOT, "collections", "ansible_collections", "kube_sched_bench", "core", "plugins")
PREFIX = "ansible_collections.kube_sched_bench.core.plugins."

# Each tree's packages, lowest first: a package may import those before it, never those after it.
LAYERS = {
    "module_utils": (
        "runtimes",    # what each runtime is and can do: data only
        "host",        # files and processes on a host
        "knobs",       # the knob table, its rules and the quantities
        "result",      # a result directory's files and summary.json's schema version
        "objects",     # the Kubernetes objects we make: builders, labels, markers
        "schedulers",  # one descriptor and workload forms per scheduler, and the knob checks that read them
        "cluster",     # the cluster under test: certificates' plan, what each scheduler may use of it
        "metrics",     # what is measured: the audit log, internals, costs, host load, statistics
        "scenarios",   # a scenario file, its expansion, records, figures and findings
        "loadtest",    # the load test on a host, which runs all of the above
    ),
    "plugin_utils": (
        "actions",     # running a task on the controller
        "cluster",     # the cluster's record, components and scheduler cycle
        "preflight",   # what a run needs of a host before it starts
        "releases",    # the kind runtime's images and manifests
        "versions",    # the version matrix
        "report",      # the report from the results
        "history",     # the history of reports
        "runner",      # the benchmark run from the command line
    ),
}
TREES = tuple(LAYERS)


def packages(tree):
    """The packages found under plugins/<tree>/: folders that hold Python files."""
    return sorted(os.path.basename(os.path.dirname(path))
                  for path in glob.glob(os.path.join(PLUGINS, tree, "*", "__init__.py")))


def _rank(tree, package):
    return TREES.index(tree), LAYERS[tree].index(package)


def _imported(node):
    """The dotted names an import node reaches: its module, and for ``from X import y`` also X.y (y may be a
    package: ``from ...module_utils import schedulers``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module] + ["%s.%s" % (node.module, alias.name) for alias in node.names]
    return []


def upward_imports(source, tree, package, path="<source>"):
    """One line per import in ``source`` (a file of plugins/<tree>/<package>/) of a package not below it, or of a
    package that has no layer: "<path>:<line>: ..."."""
    out = []
    for node in ast.walk(ast.parse(source, path)):
        for name in _imported(node):
            parts = name[len(PREFIX):].split(".") if name.startswith(PREFIX) else []
            if len(parts) < 2 or parts[0] not in LAYERS or (parts[0], parts[1]) == (tree, package):
                continue
            target = "%s.%s" % (parts[0], parts[1])
            if parts[1] not in LAYERS[parts[0]]:
                out.append("%s:%d: imports %s, which has no layer in LAYERS" % (path, node.lineno, target))
            elif _rank(*parts[:2]) > _rank(tree, package):
                out.append("%s:%d: %s/%s imports %s, which lies above it" % (path, node.lineno, tree, package, target))
    return sorted(set(out), key=lambda line: int(line.split(":")[1]))


def _files():
    for tree in TREES:
        for path in sorted(glob.glob(os.path.join(PLUGINS, tree, "*", "**", "*.py"), recursive=True)):
            package = os.path.relpath(path, os.path.join(PLUGINS, tree)).split(os.sep)[0]
            yield tree, package, path


@pytest.mark.parametrize("tree", TREES)
def test_every_package_has_a_layer(tree):
    missing = [name for name in packages(tree) if name not in LAYERS[tree]]
    assert not missing, ("%s/%s has no layer: add it to LAYERS[%r] in tests/lint/test_layers.py, above the packages "
                         "it imports and below those that import it" % (tree, ", ".join(missing), tree))
    assert [name for name in LAYERS[tree] if name not in packages(tree)] == [], "LAYERS names a package that is gone"


@pytest.mark.parametrize("tree,package,path", [pytest.param(*file, id=os.path.relpath(file[2], PLUGINS))
                                                for file in _files()])
def test_each_package_imports_only_packages_below_it(tree, package, path):
    if package not in LAYERS[tree]:
        pytest.skip("%s/%s has no layer (test_every_package_has_a_layer says where to add it)" % (tree, package))
    with open(path, encoding="utf-8") as handle:
        assert upward_imports(handle.read(), tree, package, os.path.relpath(path, ROOT)) == []


def test_the_check_catches_an_upward_import():
    """Planted: metrics reaching up into the load test, both spellings, beside imports that are allowed."""
    source = "\n".join([
        "import os",
        "from %smodule_utils.schedulers import views" % PREFIX,
        "from %smodule_utils.metrics import stats" % PREFIX,
        "from %smodule_utils.loadtest.workloads import JOB_LABEL" % PREFIX,
        "from %smodule_utils import loadtest, host" % PREFIX,
        "import %splugin_utils.report.model" % PREFIX,
        "from %smodule_utils import newcomer" % PREFIX,
    ])
    assert upward_imports(source, "module_utils", "metrics", "planted.py") == [
        "planted.py:4: module_utils/metrics imports module_utils.loadtest, which lies above it",
        "planted.py:5: module_utils/metrics imports module_utils.loadtest, which lies above it",
        "planted.py:6: module_utils/metrics imports plugin_utils.report, which lies above it",
        "planted.py:7: imports module_utils.newcomer, which has no layer in LAYERS",
    ]
    assert upward_imports("\n".join(source.splitlines()[:6]), "plugin_utils", "history") == []
