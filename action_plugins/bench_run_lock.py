# -*- coding: utf-8 -*-
"""Hold or release a host's run lock (library/bench_run_lock.py) for this run of ansible-playbook.

The holder is this run: its id, the controller's host name, the pid of ansible-playbook (the parent of
the worker this plugin runs in) and the time. A lock held by a run of this controller whose
ansible-playbook is gone is stale: it is taken over with a warning. A lock of a live run, or of another
controller (whose processes this one cannot see), stops the run with one line naming the holder.
"""
from __future__ import annotations

import datetime
import getpass
import json
import os
import select
import shlex
import socket
import subprocess
import sys

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import guard
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.guard import (
    CLEANUP_S,
    READY,
    alive,
    cmdline,
    guard_argv,
    start_ticks,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.actions.direct_run import DirectModuleAction

# The guard's keeper runs the guard's own file as a script (it imports nothing of the project).
GUARD_FILE = os.path.abspath(guard.__file__)


def ansible_runs(pid):
    """True when pid is a live ansible process on this machine."""
    try:
        pid = int(pid)
    except (TypeError, ValueError):
        return False
    return alive(pid) and any("ansible" in part for part in cmdline(pid) or [])


def describe(holder):
    return "run %s from controller %s (ansible-playbook pid %s, user %s), started %s" % (
        holder.get("run_id", "?"), holder.get("controller", "?"), holder.get("pid", "?"), holder.get("user", "?"),
        holder.get("started", "?"))


class ActionModule(DirectModuleAction):
    _VALID_ARGS = frozenset(("path", "run_id", "state", "workspace", "guard_timeout", "guard_commands"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        self._vars = task_vars
        args = self._task.args
        if self._play_context.check_mode:
            return dict(result, skipped=True, msg="check mode: no lock")
        controller = socket.gethostname()
        holder = dict(run_id=str(args["run_id"]), controller=controller, pid=os.getppid(), user=getpass.getuser(),
                      started=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
        state = args.get("state", "acquired")
        module_args = dict(path=args["path"], holder=holder, state=state)

        if state == "released":
            # Teardown (run_id empty) removes a lock whose run is gone or belongs to another controller.
            if not args["run_id"]:
                # Reads the holder: a release in the name of no run removes nothing.
                module_args["holder"] = dict(holder, run_id="teardown")
                current = self._run_module(module_args).get("holder") or {}
                if not current:
                    return dict(result, changed=False, holder={})
                if current.get("controller") == controller and ansible_runs(current.get("pid")):
                    return dict(result, changed=False, holder=current,
                                warnings=["%s still holds %s: its lock is left in place" % (describe(current),
                                                                                            args["path"])])
                self._run_module(dict(module_args, force=True))
                return dict(result, changed=True, holder=current,
                            warnings=["removed the run lock %s of %s" % (args["path"], describe(current))])
            return dict(result, **self._run_module(module_args))

        if args.get("workspace"):
            module_args["clusters_dir"] = os.path.join(args["workspace"], "clusters")
        acquired = self._run_module(module_args)
        if acquired.get("failed"):
            return dict(result, **acquired)
        current = acquired.get("holder") or {}
        if not acquired.get("acquired") and current.get("controller") == controller \
                and not ansible_runs(current.get("pid")):
            acquired = self._run_module(dict(module_args, takeover=str(current.get("run_id"))))
            if acquired.get("acquired"):
                result["warnings"] = ["took over the stale run lock %s of %s: its ansible-playbook is gone"
                                      % (args["path"], describe(current))]
        if not acquired.get("acquired"):
            current = acquired.get("holder") or current
            return dict(result, failed=True, holder=current, msg=(
                "%s is busy: %s holds %s; wait for it, or give this run its own bench_workspace (and "
                "bench_port_range_start/end); a lock left by a dead run of another controller is removed by "
                "make teardown" % (task_vars.get("inventory_hostname"), describe(current), args["path"])))
        result.update(changed=True, acquired=True, holder=acquired.get("holder"), taken_over=acquired.get("taken_over"),
                      leftovers=acquired.get("leftovers", []))
        if args.get("workspace"):
            result["guard"] = self._start_guard(args, holder)
            if not result["guard"].get("pid"):
                result.setdefault("warnings", []).append(
                    "no host-side guard for this run: %s; an interrupted run leaves its processes until the next run "
                    "or make teardown" % result["guard"]["reason"])
        return result

    def _guard_command(self, guard_config):
        """The keeper's command line for this host's connection, or None with the reason."""
        interpreter = self._vars.get("ansible_python_interpreter") or \
            (self._vars.get("ansible_facts") or {}).get("discovered_interpreter_python") or "python3"
        interpreter = self._templar.template(interpreter)
        argv = guard_argv(interpreter, guard_config)
        kind = self._connection.transport.rsplit(".", 1)[-1]
        if kind == "local":
            return argv, None
        if kind == "ssh" and hasattr(self._connection, "_build_command"):
            host = self._connection.get_option("host") or self._play_context.remote_addr
            command = self._connection._build_command(  # noqa: SLF001 - Ansible's own ssh command line for this host
                self._connection.get_option("ssh_executable"), "ssh", host, shlex.join(argv))
            return [part.decode() if isinstance(part, bytes) else part for part in command], None
        if kind == "docker" and hasattr(self._connection, "_build_exec_cmd"):
            command = self._connection._build_exec_cmd(argv)  # noqa: SLF001 - the collection's docker exec command line
            return [part.decode() if isinstance(part, bytes) else part for part in command], None
        return None, "the %s connection has no lifeline (local, ssh and docker do)" % kind

    def _start_guard(self, args, holder):
        """Start the keeper of this host's guard (module_utils/host/guard.py) in a session of its own."""
        guard_config = dict(lock=args["path"], run_id=holder["run_id"], workspace=args["workspace"],
                            timeout_s=float(args.get("guard_timeout") or 20),
                            commands=[[str(part) for part in argv] for argv in args.get("guard_commands") or []])
        command, reason = self._guard_command(guard_config)
        if command is None:
            return dict(reason=reason)
        keeper = dict(command=command, parent=holder["pid"], parent_ticks=start_ticks(holder["pid"]),
                      cleanup_s=guard_config["timeout_s"] + CLEANUP_S)
        try:
            process = subprocess.Popen(  # noqa: S603 - our own script
                [sys.executable, GUARD_FILE, "keep", json.dumps(keeper)], stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            return dict(reason="could not start its keeper: %s" % exc)
        ready, _, _ = select.select([process.stdout], [], [], 40)
        line = process.stdout.readline().decode("utf-8", "replace").strip() if ready else "no answer in 40 s"
        process.stdout.close()
        if not line.startswith(READY):
            return dict(reason=line or "its keeper ended at once")
        return dict(pid=int(line.split()[-1]), keeper_pid=process.pid, timeout_s=guard_config["timeout_s"])

    def _run_module(self, module_args):
        return self.run_own_module("bench_run_lock", module_args, self._vars)
