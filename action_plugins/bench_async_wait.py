"""Action: wait for an asynchronous task and show its progress at the terminal.

Polls the job with async_status every `poll` seconds; every `interval` seconds
reads the JSON progress file the task writes on the host (see
module_utils/loadtest/progress.py) and prints one line such as
  [node1] default: wait 1200/3000 pods bound, 40.1 s elapsed, ETA 60 s
or, for a task without a progress file (a build), how long it has been running.
Returns the task's own result once it has finished, so that `register` and
failures behave as if the task had run in the foreground.

On a local connection the job's results file and the progress file are read
directly, every 0.2 s, and async_status runs once, for the result: a module call
every `poll` seconds is a Python process that would run beside the load test it
waits for, counted as the host's other load.
"""
from __future__ import annotations

import base64
import json
import posixpath
import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.actions.direct_run import is_local

display = Display()

DOCUMENTATION = r"""
---
module: bench_async_wait
short_description: Wait for an async task of this project, showing its progress
options:
  jid: {description: ansible_job_id of the task started with poll 0, type: str, required: true}
  results_file:
    description:
      - results_file of the task started with poll 0; its directory is the job's. Without it, the async directory
        as Ansible expands it, which on a local connection is the remote user's home from the user database, not
        $HOME where the job wrote its file.
    type: path
  progress_file: {description: JSON progress file the task writes on the host, type: path}
  label: {description: Prefix of each progress line, type: str, default: ""}
  interval: {description: Seconds between progress lines, type: int, default: 10}
  poll: {description: Seconds between status checks, type: int, default: 2}
  timeout: {description: Seconds to wait at most (0 for as long as the job's own async limit), type: int, default: 0}
"""

COUNTED = {"nodes": "fake nodes Ready", "submit": "jobs submitted"}
LOCAL_POLL_S = 0.2
JOB_KEYS = ("ansible_job_id", "results_file", "started", "finished", "stdout", "stderr", "stdout_lines",
            "stderr_lines")


def progress_line(label, state):
    """One line for the terminal from the module's progress state; None when there is nothing to say."""
    if not state or state.get("phase") in (None, "starting"):
        return None
    phase = state["phase"]
    total = state.get("total")
    count = state.get("count", 0)
    if phase == "wait":
        what = "pods %s" % state.get("wait_for", "bound")
        counts = " (%s created, %s bound, %s completed)" % (
            state.get("pods_created", 0), state.get("pods_bound", 0), state.get("pods_completed", 0))
    elif phase == "finished":
        return "%s%s after %s s" % (label, state.get("outcome", "finished"), state.get("elapsed_s", "?"))
    else:
        what, counts = COUNTED.get(phase, phase), ""
    eta = state.get("eta_s")
    return "%s%s %s/%s %s%s, %s s elapsed%s" % (
        label, phase, count, total if total is not None else "?", what, counts, state.get("elapsed_s", "?"),
        ", ETA %d s" % round(eta) if eta is not None else "")


def job_finished(text):
    """Whether an async job's results file (its text) says that the job has finished: Ansible's wrapper writes
    {"started": 1, "finished": 0, ...} first and the module's own result once it is done (async_status's rule)."""
    try:
        data = json.loads(text)
    except ValueError:
        return False   # being written
    return isinstance(data, dict) and ("started" not in data or bool(data.get("finished")))


def read_local(path):
    """The text of a file on this machine, None when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("jid", "results_file", "progress_file", "label", "interval", "poll", "timeout"))

    def run(self, tmp=None, task_vars=None):
        super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec={
            "jid": {"type": "str", "required": True},
            "results_file": {"type": "path"},
            "progress_file": {"type": "path"},
            "label": {"type": "str", "default": ""},
            "interval": {"type": "int", "default": 10},
            "poll": {"type": "int", "default": 2},
            "timeout": {"type": "int", "default": 0},
        })
        if args["interval"] < 1 or args["poll"] < 1:
            raise AnsibleActionFail("bench_async_wait: interval and poll must be at least 1 second")
        async_dir = (posixpath.dirname(args["results_file"]) if args["results_file"]
                     else self._remote_expand_user(self.get_shell_option("async_dir", default="~/.ansible_async")))
        host = task_vars.get("inventory_hostname", "")
        # A job's file that this controller can read (a local connection): no module call until it says done.
        self._local = is_local(self._connection.transport)
        local_file = args["results_file"] if self._local else None
        started = time.monotonic()
        shown = started
        state = {}
        try:
            while True:
                text = read_local(local_file) if local_file else None
                if text is None:
                    local_file = None   # not readable here (another user's): async_status, as on any host
                if local_file is None or job_finished(text):
                    status = self._execute_module(
                        module_name="ansible.legacy.async_status", task_vars=task_vars,
                        module_args={"jid": args["jid"], "mode": "status", "_async_dir": async_dir})
                    if status.get("finished") or (status.get("failed") and not status.get("started")):
                        return self._finished(status, args["jid"], async_dir, task_vars)
                now = time.monotonic()
                if args["timeout"] and now - started > args["timeout"]:
                    self._stop(state)
                    return {"failed": True, "msg": "gave up waiting for the job after %d s" % args["timeout"]}
                if now - shown >= args["interval"]:
                    shown = now
                    if args["progress_file"]:
                        state = self._read_state(args["progress_file"], task_vars) or state
                        line = progress_line(args["label"], state)
                    else:
                        line = "%sstill running, %d s elapsed" % (args["label"], now - started)
                    if line:
                        display.display("[%s] %s" % (host, line))
                time.sleep(LOCAL_POLL_S if local_file else args["poll"])
        except BaseException:
            # Interrupted (Ctrl-C) or the host went away: do not leave the job running on the host.
            self._stop(state or self._read_state(args["progress_file"], task_vars))
            raise

    def _finished(self, status, jid, async_dir, task_vars):
        result = {key: value for key, value in status.items() if key not in JOB_KEYS}
        self._execute_module(module_name="ansible.legacy.async_status", task_vars=task_vars,
                             module_args={"jid": jid, "mode": "cleanup", "_async_dir": async_dir})
        return result

    def _read_state(self, path, task_vars):
        if not path:
            return {}
        if self._local:
            try:
                return json.loads(read_local(path) or "{}")
            except ValueError:
                return {}
        slurped = self._execute_module(module_name="ansible.legacy.slurp", module_args={"src": path},
                                       task_vars=task_vars)
        if slurped.get("failed") or "content" not in slurped:
            return {}
        try:
            return json.loads(base64.b64decode(slurped["content"]))
        except ValueError:
            return {}

    def _stop(self, state):
        pid = (state or {}).get("pid")
        if isinstance(pid, int) and pid > 1 and not state.get("done"):
            try:
                self._low_level_execute_command("kill -TERM %d" % pid)
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
