"""Every filter, action and callback plugin and doc fragment loads as Ansible loads it: by its file, in a process
whose sys.path has none of the project's directories (the unit tests' own sys.path has them all, and would hide a
missing import path)."""
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGINS = sorted(glob.glob(os.path.join(ROOT, "filter_plugins", "*.py"))
                 + glob.glob(os.path.join(ROOT, "roles", "*", "filter_plugins", "*.py"))
                 + glob.glob(os.path.join(ROOT, "action_plugins", "*.py"))
                 + glob.glob(os.path.join(ROOT, "callback_plugins", "*.py"))
                 + glob.glob(os.path.join(ROOT, "doc_fragments", "*.py")))
LOAD = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("plugin_under_test", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
"""


@pytest.mark.parametrize("path", PLUGINS, ids=lambda path: os.path.relpath(path, ROOT))
def test_a_plugin_loads_by_its_file_alone(path, tmp_path):
    loaded = subprocess.run([sys.executable, "-c", LOAD, path], cwd=tmp_path, capture_output=True, text=True,
                            env={"PATH": os.environ.get("PATH", "")}, check=False)
    assert loaded.returncode == 0, loaded.stderr[-2000:]
