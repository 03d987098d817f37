#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: run a component as a tracked background process, or stop it."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_process
short_description: Start a long-running component in the background and wait until it is ready, or stop it
description:
  - Starts a command in its own session with its output in a log file and its PID in a pid file, so that it
    outlives the Ansible task and can be found and stopped later.
  - With O(ready_url), waits until an HTTPS or HTTP GET answers 200. If the process dies first, or the
    timeout passes, fails with the tail of its log.
  - A process already running from the same pid file with the same command line is left alone (C(changed=false)).
  - O(state=stopped) sends SIGTERM to the process group, then SIGKILL after O(stop_timeout); stopping
    something that is not running is not an error.
  - With O(processes), several components in one call, one after another, each ready before the next starts
    (a cluster's etcd, API server, controller manager and kwok), unless an entry sets C(wait_before_next=false);
    then the next starts at once, and both are waited for, in order, with the next entry that waits or at the end
    (kube-apiserver retries etcd until it answers, so the two start together).
  - Before anything starts, O(directories) are created and O(files) written where their content or mode differ
    (the components' configuration, in one call instead of two).
  - With O(pid_dir) and O(state=stopped), every process that has a pid file in that directory, all but those
    named in O(last) at once, then those in O(last), in that order (a cluster's own components after its
    schedulers and load test). With O(remove_dir) too, that directory goes once they are all stopped (a cluster
    torn down in one call).
version_added: "0.1.0"
options:
  name:
    description: Name of the component, used in messages. Required without O(processes) and O(pid_dir).
    type: str
  processes:
    description:
      - Components to start in this order, each a dict of O(name), O(argv), O(pid_file), O(log_file) and,
        where needed, O(env), O(chdir), O(ready_url), O(ready_ca), O(ready_cert), O(ready_key), O(cpus) and
        C(wait_before_next) (default true); the options of the same names given to the module are the defaults of
        each.
    type: list
    elements: dict
  directories:
    description: With O(state=started), directories to create where missing (with O(directory_mode)) first.
    type: list
    elements: path
    default: []
  directory_mode:
    description: Mode of the directories this call creates.
    type: raw
    default: "0700"
  files:
    description:
      - With O(state=started), files to write before anything starts, each C(path), C(content) (text) and optional
        C(mode) (default C(0600)); atomically, and only where the content or the mode differs.
    type: list
    elements: dict
    default: []
  pid_dir:
    description: With O(state=stopped), stop every process whose pid file (C(<name>.pid)) is in this directory.
    type: path
  last:
    description: With O(pid_dir), the names stopped after all others, in this order.
    type: list
    elements: str
    default: []
  remove_dir:
    description:
      - With O(pid_dir), a directory that holds it, removed with everything in it once every process is stopped.
        Left as it is when a process could not be stopped.
      - The processes named in O(last) then go together and are killed at once (SIGKILL right after SIGTERM)
        after the others have stopped gracefully, since what they would keep is removed.
    type: path
  discard:
    description:
      - With O(pid_dir), stop the processes named in O(last) as O(remove_dir) does (together, killed at once),
        but keep the directory, for a cluster whose state is thrown away later, whose files are still read first
        (its audit log).
    type: bool
    default: false
  state:
    description: C(started) or C(stopped).
    type: str
    choices: [started, stopped]
    default: started
  argv:
    description: The command and its arguments. Required with O(state=started).
    type: list
    elements: str
  env:
    description: Extra environment variables for the process.
    type: dict
    default: {}
  chdir:
    description: Working directory of the process.
    type: path
  pid_file:
    description: Where the PID is kept. Required without O(processes) and O(pid_dir).
    type: path
  log_file:
    description: Where the process writes stdout and stderr (appended). Required with O(state=started).
    type: path
  ready_url:
    description: URL that answers 200 once the component is ready.
    type: str
  ready_ca:
    description: CA bundle to verify O(ready_url) with.
    type: path
  ready_cert:
    description: Client certificate for O(ready_url).
    type: path
  ready_key:
    description: Client key for O(ready_url).
    type: path
  ready_timeout:
    description: Seconds to wait for readiness.
    type: float
    default: 120
  stop_timeout:
    description: Seconds between SIGTERM and SIGKILL.
    type: float
    default: 15
  log_tail:
    description: Lines of the log to show when the component fails.
    type: int
    default: 25
  cpus:
    description:
      - Run the process on at most this many of the CPUs it may use (CPU affinity, inherited by all its
        threads); 0 for all of them. No root needed; a fairness knob, not a cgroup quota.
    type: int
    default: 0
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Start etcd
  bench_process:
    name: etcd
    argv: [/opt/bin/etcd, --data-dir, /tmp/c1/etcd, --listen-client-urls, "http://127.0.0.1:23790"]
    pid_file: /tmp/c1/run/etcd.pid
    log_file: /tmp/c1/logs/etcd.log
    ready_url: http://127.0.0.1:23790/health

- name: Stop etcd
  bench_process:
    name: etcd
    state: stopped
    pid_file: /tmp/c1/run/etcd.pid

- name: Start etcd, then kube-apiserver once etcd is ready
  bench_process:
    processes:
      - {name: etcd, argv: [/opt/bin/etcd], pid_file: /tmp/c1/run/etcd.pid, log_file: /tmp/c1/logs/etcd.log,
         ready_url: "http://127.0.0.1:2379/health"}
      - {name: kube-apiserver, argv: [/opt/bin/kube-apiserver], pid_file: /tmp/c1/run/kube-apiserver.pid,
         log_file: /tmp/c1/logs/kube-apiserver.log, ready_url: "https://127.0.0.1:6443/readyz"}
    ready_ca: /tmp/c1/pki/ca.crt

- name: Stop everything of the cluster, etcd last
  bench_process:
    state: stopped
    pid_dir: /tmp/c1/run
    last: [kube-apiserver, etcd]
- name: Tear the cluster down, its directory with it
  bench_process:
    state: stopped
    pid_dir: /tmp/c1/run
    last: [kube-apiserver, etcd]
    remove_dir: /tmp/c1

- name: Stop the cluster at once, keeping its files until its results are fetched
  bench_process:
    state: stopped
    pid_dir: /tmp/c1/run
    last: [kube-apiserver, etcd]
    discard: true
"""

RETURN = r"""
pid:
  description: PID of the process (started), or of the process that was stopped.
  returned: when there is one
  type: int
running:
  description: Whether the process runs when the module returns.
  returned: always
  type: bool
pids:
  description: With O(processes), the PID of each component by name.
  returned: with O(processes)
  type: dict
ready_s:
  description: With O(processes), the seconds each component took from its start (or its check) until it was ready.
  returned: with O(processes)
  type: dict
stopped:
  description: With O(pid_dir), the names of the processes that were running and were stopped, in order.
  returned: with O(pid_dir)
  type: list
written:
  description: The files of O(files) that this call wrote (their content or mode differed).
  returned: with O(state=started)
  type: list
  elements: str
removed:
  description: With O(remove_dir), whether the directory existed and was removed.
  returned: with O(remove_dir)
  type: bool
"""

import os
import shutil
import ssl
import subprocess
import time
import urllib.error
import urllib.request

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.file_set import write
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.guard import alive, owned_pid, stop_group, stop_order
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.pid_file import remove_pid_file, write_pid_file


def log_tail(path, lines):
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 16384))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return "(no log at %s)" % path
    return "\n".join(text.splitlines()[-lines:])


def probe(url, ca, cert, key):
    """True when url answers 200."""
    context = None
    if url.startswith("https://"):
        context = ssl.create_default_context(cafile=ca) if ca else ssl.create_default_context()
        if cert:
            context.load_cert_chain(cert, key)
    try:
        with urllib.request.urlopen(url, timeout=5, context=context) as response:  # noqa: S310 - our own URL
            return response.status == 200
    except (urllib.error.URLError, OSError, ssl.SSLError):
        return False


def stop(pid, timeout):
    """SIGTERM the process group of pid, then SIGKILL (bench_host_guard.stop_group); True if it ran."""
    if not alive(pid):
        return False
    stop_group([pid], timeout)
    return True


def pick_cpus(allowed, count):
    """The CPUs a process limited to ``count`` of ``allowed`` runs on; None when that is no limit."""
    if count <= 0 or count >= len(allowed):
        return None
    return set(sorted(allowed)[-count:])


def start(module, params):
    argv = params["argv"]
    for directory in {os.path.dirname(params["pid_file"]), os.path.dirname(params["log_file"])}:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    env = dict(os.environ)
    env.update({key: str(value) for key, value in params["env"].items()})
    cpus = pick_cpus(os.sched_getaffinity(0), params["cpus"])
    with open(params["log_file"], "ab") as log, open(os.devnull, "rb") as devnull:
        log.write(("--- %s starting %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                             " ".join(argv))).encode())
        log.flush()
        try:
            process = subprocess.Popen(  # noqa: S603 - argv comes from the role, not a shell
                argv, stdin=devnull, stdout=log, stderr=subprocess.STDOUT, cwd=params["chdir"],
                env=env, start_new_session=True, close_fds=True,
                # Before exec, so that every thread the process starts inherits it.
                preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
        except OSError as exc:
            module.fail_json(msg="could not start %s: %s" % (params["name"], exc))
    write_pid_file(params["pid_file"], process.pid)
    return process


def wait_ready(module, params, process):
    url = params["ready_url"]
    deadline = time.monotonic() + params["ready_timeout"]
    while True:
        code = process.poll()
        if code is not None:
            module.fail_json(
                msg="%s exited with code %d before it became ready; last lines of %s:\n%s"
                % (params["name"], code, params["log_file"], log_tail(params["log_file"], params["log_tail"])),
                running=False)
        if url is None or probe(url, params["ready_ca"], params["ready_cert"], params["ready_key"]):
            return
        if time.monotonic() > deadline:
            stop(process.pid, params["stop_timeout"])
            module.fail_json(
                msg="%s did not become ready at %s within %gs (stopped it); last lines of %s:\n%s"
                % (params["name"], url, params["ready_timeout"], params["log_file"],
                   log_tail(params["log_file"], params["log_tail"])),
                running=False)
        time.sleep(0.05)


# The per-component options, which O(processes) entries may set and whose module values are their defaults.
COMPONENT_OPTIONS = ("name", "argv", "env", "chdir", "pid_file", "log_file", "ready_url", "ready_ca", "ready_cert",
                     "ready_key", "ready_timeout", "stop_timeout", "log_tail", "cpus")
# What only an entry of O(processes) sets, with its default.
ENTRY_OPTIONS = {"wait_before_next": True}






def stop_dir(module, params):
    directory = params["pid_dir"]
    try:
        names = sorted(entry[:-4] for entry in os.listdir(directory) if entry.endswith(".pid"))
    except FileNotFoundError:
        names = []
    stopped, surviving = [], []
    for wave, grace in stop_order(names, params["last"],
                                     discarded=params["discard"] or bool(params["remove_dir"])):
        files = {name: os.path.join(directory, name + ".pid") for name in wave}
        running = {name: owned_pid(path) for name, path in files.items()}
        running = {name: pid for name, pid in running.items() if pid is not None}
        stopped.extend(name for name in wave if name in running)
        if not module.check_mode:
            surviving += stop_group(list(running.values()), params["stop_timeout"] if grace is None else grace)
            for path in files.values():
                remove_pid_file(path)
    result = {"changed": bool(stopped), "stopped": stopped, "running": False}
    if params["remove_dir"] and surviving:
        module.fail_json(msg="%s left in place: processes %s still run after SIGKILL"
                             % (params["remove_dir"], ", ".join(str(pid) for pid in surviving)), **result)
    if params["remove_dir"]:
        result["removed"] = os.path.isdir(params["remove_dir"])
        result["changed"] = result["changed"] or result["removed"]
        if result["removed"] and not module.check_mode:
            shutil.rmtree(params["remove_dir"])
    module.exit_json(**result)


def write_files(module, params):
    """Create O(directories) and write O(files) (what differs); the paths written."""
    try:
        return write(params["directories"], [], params["files"], params["directory_mode"], module.check_mode)[2]
    except ValueError as exc:
        module.fail_json(msg=str(exc))


def start_all(module, params):
    """Check every entry of O(processes), write the files, then start each in order, each ready before the next
    (or, after an entry with wait_before_next=false, together with the next)."""
    components = [component_of(module, params, entry) for entry in params["processes"]]
    written = write_files(module, params)
    pids, ready_s, started_any, pending = {}, {}, False, []
    for index, component in enumerate(components):
        begun = time.monotonic()
        pid, process = ensure_running(module, component)
        pids[component["name"]] = pid
        started_any = started_any or process is not None or (module.check_mode and pid is None)
        pending.append((component, process, begun))
        if component["wait_before_next"] or index == len(components) - 1:
            for waited, waited_process, waited_begun in pending:
                if waited_process is not None:
                    wait_ready(module, waited, waited_process)
                ready_s[waited["name"]] = round(time.monotonic() - waited_begun, 2)
            pending = []
    module.exit_json(changed=started_any or bool(written), pids=pids, ready_s=ready_s, written=written,
                     running=not module.check_mode or not started_any)


def component_of(module, params, entry):
    """One entry of O(processes), checked, with the module's options as its defaults."""
    unknown = sorted(set(entry) - set(COMPONENT_OPTIONS) - set(ENTRY_OPTIONS))
    if unknown or not entry.get("name") or not entry.get("argv") or not entry.get("pid_file") or \
            not entry.get("log_file"):
        module.fail_json(msg="processes: each entry needs name, argv, pid_file and log_file, and takes only %s; "
                             "got %s" % (", ".join(COMPONENT_OPTIONS + tuple(ENTRY_OPTIONS)), entry))
    component = {key: params[key] for key in COMPONENT_OPTIONS}
    component.update(ENTRY_OPTIONS)
    component.update({key: value for key, value in entry.items() if value is not None})
    if not isinstance(component["wait_before_next"], bool):
        module.fail_json(msg="processes: wait_before_next of %s must be true or false, got %r"
                             % (component["name"], component["wait_before_next"]))
    component["argv"] = [str(arg) for arg in component["argv"]]
    component["env"] = component["env"] or {}
    for key in ("ready_timeout", "stop_timeout"):
        component[key] = float(component[key])
    for key in ("log_tail", "cpus"):
        component[key] = int(component[key])
    return component


def ensure_running(module, params):
    """(pid, process): the process of ``params`` running, started (``process``, not yet waited for) unless it
    already ran (``process`` None); in check mode (None, None) when it would start."""
    pid = owned_pid(params["pid_file"], params["argv"])
    if pid is not None or module.check_mode:
        return pid, None
    stale = owned_pid(params["pid_file"])
    if stale is not None:
        # The same pid file runs another command line: the configuration changed.
        stop(stale, params["stop_timeout"])
    process = start(module, params)
    return process.pid, process


def ensure_started(module, params):
    """(pid, changed): the process of ``params`` running and ready, started unless it already ran."""
    pid, process = ensure_running(module, params)
    if process is not None:
        wait_ready(module, params, process)
    return pid, process is not None or (module.check_mode and pid is None)


def stop_one(module, params):
    """state=stopped of one process (name, pid_file): stop it if its pid file names it, and remove the file."""
    pid = owned_pid(params["pid_file"])
    if pid is None:
        if not module.check_mode:
            remove_pid_file(params["pid_file"])
        module.exit_json(changed=False, running=False)
    if not module.check_mode:
        stop(pid, params["stop_timeout"])
        remove_pid_file(params["pid_file"])
    module.exit_json(changed=True, pid=pid, running=False)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            name=dict(type="str"),
            state=dict(type="str", default="started", choices=["started", "stopped"]),
            processes=dict(type="list", elements="dict"),
            pid_dir=dict(type="path"),
            last=dict(type="list", elements="str", default=[]),
            remove_dir=dict(type="path"),
            directories=dict(type="list", elements="path", default=[]),
            directory_mode=dict(type="raw", default="0700"),
            files=dict(type="list", elements="dict", default=[]),
            discard=dict(type="bool", default=False),
            argv=dict(type="list", elements="str"),
            env=dict(type="dict", default={}),
            chdir=dict(type="path"),
            pid_file=dict(type="path"),
            log_file=dict(type="path"),
            ready_url=dict(type="str"),
            ready_ca=dict(type="path"),
            ready_cert=dict(type="path"),
            ready_key=dict(type="path"),
            ready_timeout=dict(type="float", default=120),
            stop_timeout=dict(type="float", default=15),
            log_tail=dict(type="int", default=25),
            cpus=dict(type="int", default=0),
        ),
        mutually_exclusive=[("processes", "pid_dir"), ("processes", "name"), ("pid_dir", "pid_file")],
        required_one_of=[("name", "processes", "pid_dir")],
        required_by={"name": ("pid_file",), "remove_dir": ("pid_dir",)},
        supports_check_mode=True,
    )
    params = module.params
    if params["processes"] is not None:
        if params["state"] != "started":
            module.fail_json(msg="processes is for state=started; stop several processes with pid_dir")
        start_all(module, params)
    if params["pid_dir"] is not None:
        if params["state"] != "stopped":
            module.fail_json(msg="pid_dir is for state=stopped; start several processes with processes")
        if params["remove_dir"] and not (params["pid_dir"] + os.sep).startswith(
                params["remove_dir"].rstrip(os.sep) + os.sep):
            module.fail_json(msg="remove_dir %s does not hold pid_dir %s" % (params["remove_dir"], params["pid_dir"]))
        stop_dir(module, params)
    if params["state"] == "stopped":
        stop_one(module, params)

    if not params["argv"] or not params["log_file"]:
        module.fail_json(msg="argv and log_file must be given to start %s" % params["name"])
    written = write_files(module, params)
    pid, started = ensure_started(module, params)
    changed = started or bool(written)
    module.exit_json(changed=changed, pid=pid, written=written, running=not module.check_mode or not started)


if __name__ == "__main__":
    main()
