# -*- coding: utf-8 -*-
"""Run one of this project's modules on a host that is the controller without packing it (controller code:
imported by the action plugins of those modules, never by a module).

Ansible runs a module by packing it with every module_utils file it imports into a zip (AnsiballZ), which the
worker builds by parsing those files once per module and run, writing it into a temporary directory on the
host with four shell commands, and starting a Python that imports everything from the zip, where nothing is
compiled ahead. On this project's 2-core machine that is 0.3 s a call, whatever the module does, and a warm
run makes about fifteen of them outside its load test (docs/measurements.md). On a local connection the host
is the controller: the same module file is run by the same Python, with the same arguments, read from stdin
as Ansible's own module debugging does (``python module.py`` with the JSON on stdin), in about 0.1 s.

Only when nothing can differ: a local connection, the host's Python is the one running Ansible, no become, no
``environment``, no async and no delegation. Anything else goes through Ansible's usual path.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

from ansible.module_utils.common.json import Direction, get_module_encoder
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display
from ansible.utils.vars import merge_hash
from ansible.vars.clean import remove_internal_keys

display = Display()

# The modules of this project declare no serialization profile: they take and return Ansible's legacy JSON.
PROFILE = "legacy"

# Runs the module as a script; its AnsibleModule reads the arguments from stdin.
BOOT = "import sys, runpy; path = sys.argv[1]; sys.argv = [path]; runpy.run_path(path, run_name='__main__')"
# Where this collection's ansible_collections/ is: the module imports the collection's module_utils from there,
# as a packed module imports them from its zip.
COLLECTIONS_ROOT = os.path.abspath(__file__).rsplit(os.sep + "ansible_collections" + os.sep, 1)[0]


def boot_argv(interpreter, module_path):
    """The command that runs ``module_path`` directly (with the environment of ``boot_env``)."""
    return [interpreter, "-c", BOOT, module_path]


def boot_env(environ):
    """``environ`` with this collection importable first."""
    paths = [COLLECTIONS_ROOT] + [path for path in environ.get("PYTHONPATH", "").split(os.pathsep) if path]
    return dict(environ, PYTHONPATH=os.pathsep.join(paths))


def same_python(one, other):
    """True when both paths start the same Python in the same environment: the same file, or two names in one
    directory (a virtualenv's python and python3) for the same executable."""
    if not one or not other:
        return False
    if os.path.abspath(one) == os.path.abspath(other):
        return True
    return (os.path.dirname(os.path.abspath(one)) == os.path.dirname(os.path.abspath(other))
            and os.path.realpath(one) == os.path.realpath(other))


def is_local(transport):
    """True when a connection plugin's name (short or fully qualified) is the local connection: the host is the
    controller."""
    return transport.rsplit(".", 1)[-1] == "local"


def refusal(transport, interpreter, become, environment, async_val, delegate_to):
    """Why a call cannot run directly (a sentence), or None when it can."""
    if not is_local(transport):
        return "the connection is %s, not local" % transport
    if not same_python(interpreter, sys.executable):
        return "the host's Python %s is not the controller's %s" % (interpreter, sys.executable)
    if become:
        return "the task becomes another user"
    if environment:
        return "the task sets an environment"
    if async_val:
        return "the task runs asynchronously"
    if delegate_to:
        return "the task is delegated"
    return None


class DirectModuleAction(ActionBase):
    """An action that runs a project module directly on a local host, else as Ansible does (run_own_module)."""

    _supports_check_mode = True

    def run_own_module(self, name, module_args, task_vars):
        """The result of module ``name`` with ``module_args``, run directly where nothing can differ."""
        path = self._shared_loader_obj.module_loader.find_plugin(name, collection_list=self._task.collections)
        why_not = "no Python file" if path is None or not path.endswith(".py") else self.direct_refusal(task_vars)
        display.vvv("%s: %s" % (name, "run directly" if why_not is None else "packed, as " + why_not),
                    host=self._play_context.remote_addr)
        if why_not is not None:
            data = self._execute_module(module_name=name, module_args=module_args, task_vars=task_vars)
            self._remove_tmp_path(self._connection._shell.tmpdir)
            return data
        self._update_module_args(name, module_args, task_vars)
        payload = json.dumps({"ANSIBLE_MODULE_ARGS": module_args},
                             cls=get_module_encoder(PROFILE, Direction.CONTROLLER_TO_MODULE))
        process = subprocess.run(  # noqa: S603 - the module file and the controller's own Python
            boot_argv(sys.executable, path), input=payload.encode(), env=boot_env(os.environ),
            capture_output=True, check=False)
        data = self._parse_returned_data(dict(stdout=process.stdout.decode(errors="surrogateescape"),
                                              stderr=process.stderr.decode(errors="surrogateescape"),
                                              rc=process.returncode), PROFILE)
        remove_internal_keys(data)
        return data

    def direct_refusal(self, task_vars):
        interpreter = task_vars.get("ansible_python_interpreter")
        environment = {}
        self._compute_environment_string(environment)
        environment.update(getattr(self._connection._shell, "env", None) or {})
        return refusal(self._connection.transport, self._templar.template(interpreter) if interpreter else None,
                       self._play_context.become, environment, self._task.async_val, self._task.delegate_to)


class OwnModuleAction(DirectModuleAction):
    """The action of a project module that has no action of its own: runs the task's module."""

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        return merge_hash(result, self.run_own_module(self._task.action, dict(self._task.args), task_vars))
