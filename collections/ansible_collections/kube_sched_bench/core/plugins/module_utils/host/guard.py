# -*- coding: utf-8 -*-
"""Stopping what a run started on a host, and the guard that does it when the controller is gone.

Standard library only, and one file: ``bench_process`` imports the stopping functions, and the same
file is the lifeline of a run (docs/troubleshooting.md, "An interrupted run"):

- On the controller, the **keeper** (``python module_utils/host/guard.py keep <config>``, started by the
  action plugin ``bench_run_lock`` once the host's lock is held, in a session of its own) opens the
  host's connection (the local one or Ansible's ssh command line) and runs the guard there, sending
  this file's source on its stdin, then one heartbeat line every ``BEAT_S`` seconds for as long as the
  run's ansible-playbook lives.
- On the host, the **guard** runs from memory, detached (its own session, hang-ups ignored, output in
  ``<workspace>/guard.log``). It leaves quietly when the run's lock is gone or names another run (the run
  ended, or a teardown removed it). When its stdin closes (ansible-playbook died: Ctrl-C, SIGTERM,
  SIGKILL) or no heartbeat came for ``timeout_s`` (the connection or the controller is lost), it
  stops every process with a pid file under ``<workspace>/clusters/*/run`` (the load test first and
  gracefully, so that it writes what it measured, marked incomplete; then the rest), runs the run's
  clean-up commands (the kind runtime's cluster and registry), and removes the lock. The cluster
  directories stay: their audit logs are what ``playbooks/fetch.yml`` brings back with the partial results.
"""
from __future__ import annotations

import glob
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time

BEAT_S = 2.0
# The load test writes what it measured when stopped (SIGTERM); a seed-size run's audit log takes seconds to read.
LOADTEST_GRACE_S = 25.0
OTHERS_GRACE_S = 5.0
# The longest a clean-up can take: both waves, their SIGKILLs and a minute for each clean-up command (two).
CLEANUP_S = LOADTEST_GRACE_S + OTHERS_GRACE_S + 10 + 2 * 60
LOADTEST = "loadtest"
READY = "guard ready"
# What the keeper runs on the host: read this file's source from stdin, then run it with its config.
BOOTSTRAP = ("import sys;n=int(sys.argv[1]);src=sys.stdin.buffer.read(n);"
             "exec(compile(src,'bench_host_guard','exec'),{'__name__':'__main__'})")


# -- stopping processes (also bench_process's) -------------------------------------------------------
def read_pid(pid_file):
    try:
        with open(pid_file, encoding="ascii") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            return [part.decode("utf-8", "replace") for part in handle.read().split(b"\0") if part]
    except OSError:
        return None


def process_state(pid):
    """The state letter of pid in /proc (R, S, T: stopped, Z: zombie ...), or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid, encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def alive(pid):
    """True when pid runs and is not a zombie."""
    return process_state(pid) not in (None, "Z", "X")


def start_ticks(pid):
    """The start time of pid (clock ticks since boot), which tells it from a later process given the same pid."""
    try:
        with open("/proc/%d/stat" % pid, encoding="ascii", errors="replace") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def owned_pid(pid_file, expect_argv=None):
    """The PID in pid_file if that process still runs (and runs expect_argv, if given)."""
    pid = read_pid(pid_file)
    if pid is None or not alive(pid):
        return None
    running = cmdline(pid)
    if running is None:
        return None
    if expect_argv is not None and running != list(expect_argv):
        return None
    return pid


def signal_group(pid, sig):
    """Send ``sig`` to the process group that ``pid`` leads, or to ``pid`` alone when it leads none; False when it is
    gone."""
    try:
        group = os.getpgid(pid)
        if group == pid:
            os.killpg(group, sig)
        else:
            os.kill(pid, sig)
    except (OSError, ProcessLookupError):
        return False
    return True


def stop_group(pids, timeout):
    """SIGTERM every process group of ``pids`` at once, then SIGKILL what is left after ``timeout``; the pids that
    still run 5 s after that. A SIGCONT follows the SIGTERM: a scheduler held for a backlog (sched_hold) is a
    stopped process, which would otherwise act on the SIGTERM only at the SIGKILL."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5)):
        for pid in pids:
            signal_group(pid, sig)
            if sig == signal.SIGTERM:
                signal_group(pid, signal.SIGCONT)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(alive(pid) for pid in pids):
            time.sleep(0.02)
        if not any(alive(pid) for pid in pids):
            return []
    return [pid for pid in pids if alive(pid)]


def stop_order(names, last, discarded=False):
    """The pid files' names in stopping order, as (names, seconds between SIGTERM and SIGKILL or None for the
    stop timeout) waves: everything not in ``last`` at once, then each of ``last`` alone, in order. When the
    components of ``last`` are ``discarded`` (their directory goes next), they go together, killed at once: a
    graceful stop (about a second for kube-apiserver) would only keep state that is deleted anyway."""
    first = sorted(name for name in names if name not in last)
    waves = [(first, None)] if first else []
    rest = [name for name in last if name in names]
    if discarded:
        return waves + ([(rest, 0.0)] if rest else [])
    return waves + [([name], None) for name in rest]


def guard_waves(pid_files):
    """The guard's stopping order of ``pid_files`` (paths): the load tests alone and gracefully, so that they
    write what they measured; then everything else together (schedulers, kwok, the cluster's components)."""
    tests = sorted(path for path in pid_files if os.path.basename(path) == LOADTEST + ".pid")
    others = sorted(path for path in pid_files if path not in tests)
    return [(paths, grace) for paths, grace in ((tests, LOADTEST_GRACE_S), (others, OTHERS_GRACE_S)) if paths]


# -- the run's lock (also bench_run_lock's) and the guard, on the host ----------------------------------
def read_holder(path):
    """The holder named in the lock file, {} when there is none, {'run_id': '?'} when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            holder = json.load(handle)
        return holder if isinstance(holder, dict) else {"run_id": "?"}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return {"run_id": "?"}


def lock_names(lock, run_id):
    """True when the lock file exists and names ``run_id``."""
    return read_holder(lock).get("run_id") == run_id


def verdict(lock_ours, stdin_closed, silent_s, timeout_s):
    """What the guard does now: 'leave' (the run ended or someone else's lock), 'stop' (the controller is gone:
    its pipe closed, or silent for longer than the timeout), or 'watch'."""
    if not lock_ours:
        return "leave"
    if stdin_closed or silent_s > timeout_s:
        return "stop"
    return "watch"


def log(message):
    sys.stderr.write("%s %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), message))
    sys.stderr.flush()


def clean_up(config, why):
    """Stop what the run started on this host, run the clean-up commands, remove the lock."""
    log("run %s: %s; stopping what it started" % (config["run_id"], why))
    files = glob.glob(os.path.join(config["workspace"], "clusters", "*", "run", "*.pid"))
    for paths, grace in guard_waves(files):
        running = {path: owned_pid(path) for path in paths}
        pids = [pid for pid in running.values() if pid is not None]
        if pids:
            log("stopping %s" % ", ".join("%s (%d)" % (os.path.relpath(path, config["workspace"]), pid)
                                          for path, pid in running.items() if pid is not None))
            left = stop_group(pids, grace)
            if left:
                log("still running after SIGKILL: %s" % left)
    for argv in config.get("commands") or []:
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=60, check=False)
            log("%s: exit %d %s" % (" ".join(argv), done.returncode, done.stderr.decode("utf-8", "replace")[-300:]))
        except (OSError, subprocess.TimeoutExpired) as exc:
            log("%s: %s" % (" ".join(argv), exc))
    if lock_names(config["lock"], config["run_id"]):
        try:
            os.remove(config["lock"])
        except FileNotFoundError:
            pass
    log("run %s: done; its results stay in %s/results/%s" % (config["run_id"], config["workspace"], config["run_id"]))


def guard(config, stdin):
    """Watch the lifeline (``stdin``, a file descriptor) until the run ends (return) or the controller is gone (clean up, return)."""
    state = {"beat": time.monotonic(), "closed": False}

    def listen():
        while True:
            try:
                chunk = os.read(stdin, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                break
            state["beat"] = time.monotonic()
        state["closed"] = True

    threading.Thread(target=listen, daemon=True).start()
    while True:
        action = verdict(lock_names(config["lock"], config["run_id"]), state["closed"],
                         time.monotonic() - state["beat"], config["timeout_s"])
        if action == "leave":
            log("run %s: the lock is released or taken; leaving" % config["run_id"])
            return
        if action == "stop":
            clean_up(config, "the controller closed the lifeline" if state["closed"]
                     else "no heartbeat for %.0f s" % (time.monotonic() - state["beat"]))
            return
        time.sleep(0.5)


def run_guard(config):
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    try:
        os.setsid()
    except OSError:  # already a session leader (the keeper started it so, on a local connection)
        pass
    os.makedirs(config["workspace"], exist_ok=True)
    out = os.open(os.path.join(config["workspace"], "guard.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    sys.stdout.write("%s %d\n" % (READY, os.getpid()))
    sys.stdout.flush()
    os.dup2(out, 1)
    os.dup2(out, 2)
    log("run %s: guarding (lock %s, timeout %gs)" % (config["run_id"], config["lock"], config["timeout_s"]))
    guard(config, sys.stdin.fileno())
    # The listening thread may still block on stdin: leave without waiting for it.
    os._exit(0)


# -- the keeper, on the controller ---------------------------------------------------------------------
def guard_source():
    with open(os.path.abspath(__file__), "rb") as handle:
        return handle.read()


def guard_argv(interpreter, guard_config):
    """The command that runs the guard on the host, as argv (what a local connection runs; an ssh connection
    sends it as one shell-quoted string)."""
    return [interpreter, "-c", BOOTSTRAP, str(len(guard_source())), json.dumps(guard_config, sort_keys=True)]


def keep(config, out):
    """Run the guard through ``config['command']`` (guard_argv, on the host's connection) and feed it heartbeats
    while ``config['parent']`` (ansible-playbook: its pid and start time) lives.
    Writes one line to ``out``: READY and the guard's pid, or why the guard did not start."""
    source = guard_source()
    try:
        child = subprocess.Popen(config["command"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,  # noqa: S603
                                 stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        out.write("could not start the guard: %s\n" % exc)
        return 1
    child.stdin.write(source)
    child.stdin.flush()
    ready, _, _ = select.select([child.stdout], [], [], config.get("ready_timeout", 30))
    line = child.stdout.readline().decode("utf-8", "replace").strip() if ready else ""
    if not line.startswith(READY):
        out.write("the guard did not start: %s\n" % (line or "no answer in %ss" % config.get("ready_timeout", 30)))
        child.kill()
        return 1
    out.write(line + "\n")
    out.close()
    parent, parent_ticks = config["parent"], config["parent_ticks"]
    while alive(parent) and start_ticks(parent) == parent_ticks and child.poll() is None:
        try:
            child.stdin.write(b"beat\n")
            child.stdin.flush()
        except OSError:  # the connection is gone: the guard stops the run after its timeout
            break
        try:
            child.wait(timeout=BEAT_S)   # a guard that leaves (the run released its lock) ends the keeper at once
        except subprocess.TimeoutExpired:
            pass
    try:
        child.stdin.close()
    except OSError:
        pass
    # The guard now cleans up and leaves; past the longest that can take, an ssh client that lost its
    # connection is given up.
    try:
        child.wait(timeout=config.get("cleanup_s", 120))
    except subprocess.TimeoutExpired:
        child.kill()
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "keep":
        sys.exit(keep(json.loads(sys.argv[2]), sys.stdout))
    # On the host, run through BOOTSTRAP: argv is [-c, <length>, <config>].
    run_guard(json.loads(sys.argv[-1]))
