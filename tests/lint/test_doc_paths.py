"""Every repository path a document or a comment names exists, and every `file.md#anchor` names a heading.

Read: README.md, docs/*.md and roles/*/README.md (prose, `inline code` and fenced blocks alike), and the comments of
the project's files (Python comments and docstrings; `#` comments of YAML, shell, Jinja, Makefile and configuration
files). A path is a word with a `/` whose first part is one of the repository's own folders (PATH_ROOTS); in a
role's files, one of a role's folders (`tasks/...`) names a file of that role too. `module_utils/...` and
`plugin_utils/...` are read against the collection's plugins/. Placeholders match anything: `<name>`, `*`, and
`{a,b}` (either). Relative Markdown links are tests/unit/test_docs_links.py's.
"""
import ast
import io
import itertools
import os
import pathlib
import re
import tokenize

import pytest
from doc_reading import ROOT, anchors, doc_files, numbered_lines

PLUGINS = ROOT / "collections" / "ansible_collections" / "kube_sched_bench" / "core" / "plugins"
# The repository's own top-level folders (and the collection's two): a word starting with one of them is a path.
PATH_ROOTS = ("docs", "roles", "playbooks", "library", "module_utils", "plugin_utils", "tests", "hack", "scenarios",
              "schemas", "filter_plugins", "action_plugins", "callback_plugins", "doc_fragments", "inventories",
              "molecule", "collections", ".ci")
ROLE_FOLDERS = ("tasks", "defaults", "vars", "meta", "templates", "files", "handlers", "filter_plugins")
# Words that look like repository paths and are not: each with the reason.
NOT_REPO_PATHS = {
    # A test machine's shared mirror, beside the clone (tests/infra/go_mirror.py), not in it.
    "../shared/mirror/go",
    # A user's own scenario files, in docs/scenarios.md's example error messages.
    "scenarios/my.yml", "scenarios/gone.csv", "scenarios/jobs.csv",
    # A mistyped inventory, in docs/ci-and-python.md's example of the error that names it.
    "inventories/lba",
    # Ansible's own way to debug a module (`python module.py`), in plugin_utils/actions/direct_run.py.
    "module.py",
    # The file tests/conftest.py explains it must not create.
    "tests/molecule/conftest.py",
}
COMMENTED = (".py", ".yml", ".yaml", ".sh", ".j2", ".cfg", ".ini", ".toml")
SKIPPED_DIRS = {".git", ".venv", "results", ".cache", "__pycache__", ".pytest_cache", "node_modules"}

PATH_WORD = re.compile(r"(?<![\w./~$*-])((?:\.\./)*\.?[A-Za-z_][\w.-]*(?:/[\w.<>*{},-]+)+/?)(#[\w-]+)?")

BARE_PYTHON_FILE = re.compile(r"(?<![\w./~$<>*{}-])([A-Za-z_][\w-]*\.py)\b(?![/\w])")


def path_words(text):
    """(path, anchor or "") of every word of the text that looks like a repository path."""
    for match in PATH_WORD.finditer(text):
        path = match.group(1).rstrip(".,:;")
        if path.endswith("/...") or path.endswith("/.."):
            path = path.rsplit("/", 1)[0]
        yield path, (match.group(2) or "")[1:]


def _globs(path):
    """The glob patterns a path with placeholders stands for: <x> and {a,b} as wildcards and alternatives."""
    pattern = re.sub(r"<[^<>/]*>", "*", path)
    parts = re.split(r"\{([^{}]*)\}", pattern)
    choices = [[piece] if index % 2 == 0 else piece.split(",") for index, piece in enumerate(parts)]
    return ["".join(combination) for combination in itertools.product(*choices)]


def candidates(path, named_in, root=ROOT):
    """Where the path may point, from the file that names it; empty when it is no repository path."""
    first = path.split("/")[0]
    places = []
    if first in PATH_ROOTS:
        places += [root, named_in.parent]
    if first in ("module_utils", "plugin_utils"):
        places.append(root / PLUGINS.relative_to(ROOT))
    relative = named_in.relative_to(root).parts
    if first in ROLE_FOLDERS and len(relative) > 2 and relative[0] == "roles":
        places.append(root / "roles" / relative[1])
    return places


def resolve(path, named_in, root=ROOT):
    """The files the path names, [] when none exists; None when it is no repository path."""
    places = candidates(path, named_in, root)
    if not places or path in NOT_REPO_PATHS or path.startswith("../"):
        return None
    found = []
    module, _, attribute = path.rpartition(".")
    for place in places:
        for pattern in _globs(path.rstrip("/")):
            found.extend(place.glob(pattern) if any(c in pattern for c in "*?[") else
                         [place / pattern] if (place / pattern).exists() else [])
        if attribute.isidentifier() and (place / (module + ".py")).is_file():  # a module's function: x/y.run
            found.append(place / (module + ".py"))
    return found


def tree_files(root=ROOT):
    """Every file of the tree but those of SKIPPED_DIRS (the venv, caches, results)."""
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name not in SKIPPED_DIRS)
        for name in sorted(names):
            yield pathlib.Path(folder, name)


def python_file_names(root=ROOT):
    return {path.name for path in tree_files(root) if path.suffix == ".py"}


def problems_in(named_in, lines, root=ROOT, python_files=None):
    """One line per path of (line number, text) pairs that names nothing, or an anchor that is no heading; and per
    bare Python file name (`load.py`) that no folder of the tree holds."""
    python_files = python_file_names(root) if python_files is None else python_files
    problems = []
    for number, text in lines:
        for name in BARE_PYTHON_FILE.findall(text):
            if name not in python_files and name not in NOT_REPO_PATHS:
                problems.append("%s:%d: %s: no Python file of that name" % (named_in.relative_to(root), number, name))
        for path, anchor in path_words(text):
            found = resolve(path, named_in, root)
            where = "%s:%d: %s" % (named_in.relative_to(root), number, path + ("#" + anchor if anchor else ""))
            if found is None:
                continue
            if not found:
                problems.append("%s: no such file or folder" % where)
            elif anchor and found[0].suffix == ".md" and anchor not in anchors(found[0]):
                problems.append("%s: no heading with the anchor #%s" % (where, anchor))
    return problems


def python_comments(source):
    """(line number, text) of a Python file's comments and docstrings."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a file being edited: its comments are still read
        return
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc and node.body:
                start = node.body[0].lineno
                for offset, line in enumerate(doc.splitlines()):
                    yield start + offset, line


def hash_comments(source):
    """(line number, text) of the `#` comments (whole lines, or after a blank) and Jinja {# #} comments."""
    for number, line in enumerate(source.splitlines(), 1):
        for comment in re.findall(r"\{#(.*?)#\}", line):
            yield number, comment
        match = re.search(r"(?:^|\s)#(?!\})(.*)$", re.sub(r"\{#.*?#\}", "", line))
        if match:
            yield number, match.group(1)


def commented_files(root=ROOT):
    for path in tree_files(root):
        if path.suffix in COMMENTED or path.name == "Makefile" or path.parent.name == ".ci":
            yield path


def comment_lines(path):
    source = path.read_text(encoding="utf-8", errors="replace")
    return list(python_comments(source) if path.suffix == ".py" else hash_comments(source))


def document_lines(path):
    return sorted(itertools.chain(numbered_lines(path), numbered_lines(path, fenced=True)))


def stale_paths(root=ROOT):
    """Every path named by a document or a comment of the tree that does not exist."""
    problems, python_files = [], python_file_names(root)
    for path in doc_files(root):
        problems += problems_in(path, document_lines(path), root, python_files)
    for path in commented_files(root):
        problems += problems_in(path, comment_lines(path), root, python_files)
    return problems


@pytest.mark.parametrize("path", doc_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_path_a_document_names_exists(path):
    problems = problems_in(path, document_lines(path))
    assert not problems, "\n".join(problems)


def test_every_path_a_comment_names_exists():
    python_files = python_file_names()
    problems = [line for path in commented_files() for line in problems_in(path, comment_lines(path), ROOT, python_files)]
    assert not problems, "\n".join(problems)


def test_the_checker_finds_a_planted_stale_path(tmp_path):
    """A gone module, a missing heading and a gone role task file are found; placeholders, upstream paths pass."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "metrics.md").write_text("# Metrics\n\n## Peak throughput\n")
    (tmp_path / "roles" / "kind" / "tasks").mkdir(parents=True)
    (tmp_path / "roles" / "kind" / "tasks" / "main.yml").write_text("---\n")
    plugins = tmp_path / PLUGINS.relative_to(ROOT) / "module_utils" / "schedulers"
    plugins.mkdir(parents=True)
    (plugins / "kueue.py").write_text("")
    readme = tmp_path / "roles" / "kind" / "README.md"
    readme.write_text(
        "Held by `module_utils/sched_hold.py`; see docs/metrics.md#peak-throughput and docs/metrics.md#nowhere.\n"
        "Each in `module_utils/schedulers/<name>.py`, dispatched by `tasks/{main,gone}.yml`; upstream's\n"
        "`config/crd/bases` and `results/<run_id>/pods.csv` are no repository paths; nor is `'*roles/x/*'`.\n"
        "`module_utils/schedulers/kueue.DESCRIPTOR` is a module's name; the hold is in sched_hold.py.\n")
    assert problems_in(readme, document_lines(readme), tmp_path) == [
        "roles/kind/README.md:1: module_utils/sched_hold.py: no such file or folder",
        "roles/kind/README.md:1: docs/metrics.md#nowhere: no heading with the anchor #nowhere",
        "roles/kind/README.md:4: sched_hold.py: no Python file of that name",
    ]
    script = tmp_path / "hack" / "tool.py"
    script.parent.mkdir()
    script.write_text('"""Reads docs/metrics.md."""\nX = "playbooks/x.yml"  # written by playbooks/gone.yml\n')
    assert problems_in(script, comment_lines(script), tmp_path) == [
        "hack/tool.py:2: playbooks/gone.yml: no such file or folder"]
