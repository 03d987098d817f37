"""Action: wait for an asynchronous task and show its progress at the terminal.

Polls the job with async_status every `poll` seconds; every `interval` seconds
reads the JSON progress file the task writes on the host (see
module_utils/loadtest/progress.py) and prints one line such as
  [node1] default: wait 1200/3000 pods bound, 40.1 s elapsed, ETA 60 s
or, for a task without a progress file (a build), how long it has been running.
Returns the task's own result once it has finished, so that `register` and
failures behave as if the task had run in the foreground.

With `watch_pid_dir`, the processes whose pid files are there when the wait
starts (a cluster's etcd, API server, controller manager, kwok, scheduler) are
watched: when one is gone, the job is stopped (SIGTERM, so that a load test
writes what it measured; SIGKILL after `stop_grace` s) and the wait fails with a
line naming it, instead of waiting for a server that will not answer again.

On a local connection the job's results file and the progress file are read
directly, every 0.2 s, and async_status runs once, for the result: a module call
every `poll` seconds is a Python process that would run beside the load test it
waits for, counted as the host's other load.
"""
from __future__ import annotations

import base64
import json
import os
import posixpath
import shlex
import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import guard
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.pid_file import pid_files_in
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
  watch_pid_dir: {description: Directory of pid files (<name>.pid) of the processes the job needs, type: path}
  watch_ignore: {description: Names in watch_pid_dir not watched (the job's own), type: list, elements: str, default: []}
  stop_grace: {description: Seconds a stopped job has to end before it is killed, type: int, default: 120}
"""

ARGUMENT_SPEC = {
    "jid": {"type": "str", "required": True},
    "results_file": {"type": "path"},
    "progress_file": {"type": "path"},
    "label": {"type": "str", "default": ""},
    "interval": {"type": "int", "default": 10},
    "poll": {"type": "int", "default": 2},
    "timeout": {"type": "int", "default": 0},
    "watch_pid_dir": {"type": "path"},
    "watch_ignore": {"type": "list", "elements": "str", "default": []},
    "stop_grace": {"type": "int", "default": 120},
}
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


# Prints "<name> <pid> <0|1>" per pid file of a directory, 1 when the process is alive: one command per check on a
# remote host. A zombie (a process that ended, which nobody reaped) is not alive.
PID_CHECK = ('for f in %s/*.pid; do [ -f "$f" ] || continue; p=$(cat "$f"); n=${f##*/}; '
             's=$(sed "s/.*) //" "/proc/$p/stat" 2>/dev/null | cut -c1); '
             'case "$s" in ""|Z|X) a=0;; *) a=1;; esac; echo "${n%%.pid} $p $a"; done')


def parse_pid_check(text, ignore=()):
    """{name: (pid, alive)} from the lines of PID_CHECK (or of read_pid_dir)."""
    found = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1].isdigit() and fields[0] not in ignore:
            found[fields[0]] = (int(fields[1]), fields[2] == "1")
    return found


def read_pid_dir(path):
    """PID_CHECK's lines for a directory on this machine."""
    lines = []
    for pid_file in pid_files_in([path]):
        pid = guard.read_pid(pid_file)
        if pid is not None:
            lines.append("%s %d %d" % (os.path.basename(pid_file)[:-len(".pid")], pid, guard.alive(pid)))
    return "\n".join(lines)


def gone(watched, now):
    """The first (name, pid) of ``watched`` (alive when the wait began) that is no longer alive: its process ended,
    or its pid file was removed or now names another process."""
    for name, (pid, _) in sorted(watched.items()):
        if now.get(name) != (pid, True):
            return name, pid
    return None


def read_local(path):
    """The text of a file on this machine, None when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        if args["interval"] < 1 or args["poll"] < 1:
            raise AnsibleActionFail("bench_async_wait: interval and poll must be at least 1 second")
        async_dir = (posixpath.dirname(args["results_file"]) if args["results_file"]
                     else self._remote_expand_user(self.get_shell_option("async_dir", default="~/.ansible_async")))
        host = task_vars.get("inventory_hostname", "")
        # A job's file that this controller can read (a local connection): no module call until it says done.
        self._local = is_local(self._connection.transport)
        local_file = args["results_file"] if self._local else None
        started = time.monotonic()
        shown = checked = started
        state = {}
        watched = {name: found for name, found in self._pids(args, task_vars).items() if found[1]}
        stopped = None   # (when, why) once a watched process is gone and the job was told to stop
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
                        result = self._finished(status, args["jid"], async_dir, task_vars)
                        return self._failed_after_stop(result, stopped[1]) if stopped else result
                now = time.monotonic()
                if args["timeout"] and now - started > args["timeout"]:
                    self._stop(state)
                    return {"failed": True, "msg": "gave up waiting for the job after %d s" % args["timeout"]}
                if watched and not stopped and now - checked >= (1 if self._local else args["interval"]):
                    checked = now
                    stopped, state = self._stop_when_gone(watched, args, task_vars, state, now)
                if stopped and now - stopped[0] > args["stop_grace"]:
                    self._stop(state, "KILL")
                    return {"failed": True, "msg": "%s; the job did not end within %d s of being stopped and was killed"
                                                   % (stopped[1], args["stop_grace"])}
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

    def _stop_when_gone(self, watched, args, task_vars, state, now):
        """Stop the job when a watched process is gone: ((when, why) or None, the job's latest progress state)."""
        dead = gone(watched, self._pids(args, task_vars))
        if not dead:
            return None, state
        why = "%s (pid %d) stopped while the job ran" % dead
        host = task_vars.get("inventory_hostname", "")
        state = self._read_state(args["progress_file"], task_vars) or state
        # How far the job got, whenever it is stopped (also one stopped before its first progress line).
        line = progress_line(args["label"], state)
        if line:
            display.display("[%s] %s" % (host, line))
        display.display("[%s] %s%s: stopping the job" % (host, args["label"], why))
        self._stop(state)
        return (now, why), state

    def _pids(self, args, task_vars):
        """{name: (pid, alive)} of the pid files in watch_pid_dir (none without it)."""
        if not args["watch_pid_dir"]:
            return {}
        if self._local:
            text = read_pid_dir(args["watch_pid_dir"])
        else:
            text = self._low_level_execute_command(PID_CHECK % shlex.quote(args["watch_pid_dir"])).get("stdout", "")
        return parse_pid_check(text, args["watch_ignore"])

    @staticmethod
    def _failed_after_stop(result, why):
        """The job's result once it ended after being stopped: failed, the gone process first in its message."""
        own = str(result.get("msg") or "").strip()
        return dict(result, failed=True, msg=why + ("; the job then said: " + own if own else ""))

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

    def _stop(self, state, signal="TERM"):
        pid = (state or {}).get("pid")
        if isinstance(pid, int) and pid > 1 and not state.get("done"):
            try:
                self._low_level_execute_command("kill -%s %d" % (signal, pid))
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
