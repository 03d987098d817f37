"""Shared test set-up: make the project's pure Python importable."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for sub in ("module_utils", "filter_plugins", "library", "action_plugins"):
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
