"""Every module's DOCUMENTATION, EXAMPLES and RETURN is YAML that ansible-doc can read (a plain line with ": " in it
is not): what `ansible-doc -M library <module>` shows a user."""
import ast
import glob
import os

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = sorted(glob.glob(os.path.join(ROOT, "library", "*.py")) + glob.glob(os.path.join(ROOT, "action_plugins", "*.py")))


def _blocks(path):
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in ("DOCUMENTATION", "EXAMPLES", "RETURN")):
            yield node.targets[0].id, node.value.value


@pytest.mark.parametrize("path", FILES, ids=lambda path: os.path.relpath(path, ROOT))
def test_the_module_documentation_is_yaml(path):
    for name, text in _blocks(path):
        try:
            yaml.safe_load(text)
        except yaml.YAMLError as error:
            pytest.fail("%s of %s is not YAML: %s" % (name, os.path.relpath(path, ROOT), str(error).replace("\n", " ")))


def test_every_module_has_its_documentation():
    modules = [path for path in FILES if path.startswith(os.path.join(ROOT, "library"))]
    missing = [os.path.basename(path) for path in modules
               if {name for name, _ in _blocks(path)} != {"DOCUMENTATION", "EXAMPLES", "RETURN"}]
    assert missing == []
