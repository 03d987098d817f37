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
import os
import socket

from ansible.plugins.action import ActionBase


def ansible_runs(pid):
    """True when pid is a live ansible process on this machine."""
    try:
        with open("/proc/%d/cmdline" % int(pid), "rb") as handle:
            cmdline = handle.read()
        with open("/proc/%d/stat" % int(pid), encoding="ascii", errors="replace") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, ValueError, TypeError, IndexError):
        return False
    return state not in ("Z", "X") and b"ansible" in cmdline


def describe(holder):
    return "run %s from controller %s (ansible-playbook pid %s, user %s), started %s" % (
        holder.get("run_id", "?"), holder.get("controller", "?"), holder.get("pid", "?"), holder.get("user", "?"),
        holder.get("started", "?"))


class ActionModule(ActionBase):
    _VALID_ARGS = frozenset(("path", "run_id", "state"))

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
        return dict(result, changed=True, acquired=True, holder=acquired.get("holder"),
                    taken_over=acquired.get("taken_over"))

    def _run_module(self, module_args):
        return self._execute_module(module_name="bench_run_lock", module_args=module_args,
                                    task_vars=self._vars)
