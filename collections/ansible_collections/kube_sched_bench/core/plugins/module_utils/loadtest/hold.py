# -*- coding: utf-8 -*-
"""bench_arrival=backlog: the scheduler is held while the whole workload is created, then released at once, so
that what is timed from the release is the scheduler's own pace (docs/reading-the-report.md#a-held-backlog).

How each scheduler is held is its descriptor's ``hold`` (module_utils/schedulers/): its processes stopped
(SIGSTOP, continued at the release: the same processes, with the same configuration, as in any other run) or its
queues set to ``stopPolicy: Hold``. The release is marked by a ConfigMap (objects/builders.py's RELEASE_MARKER)
created in the run's namespace just before the hold ends: its creation in the audit log is the release time
(metrics/audit.py's AuditTimes).

The rules come first and are pure; ``Hold`` does the signalling and the patching for sched_load.
"""
from __future__ import annotations

import os
import signal
import time

from ansible_collections.kube_sched_bench.core.plugins.module_utils import runtimes
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.guard import owned_pid, process_state, signal_group
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import DIRECT
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.table import BY_NAME

OPEN_LOOP, BACKLOG = BY_NAME["arrival"].rule
# The runtimes where the toolkit runs the scheduler's processes itself, so can hold them.
HOLD_RUNTIMES = runtimes.with_capability("holds_backlog")


def arrival_problems(arrival, runtime=None, jobs=None, scenario_name=None, label="%s"):
    """One sentence per reason ``arrival`` cannot be used with ``runtime`` (None: not checked) and the expanded
    ``jobs`` of a scenario (sched_scenarios.expand; None: not checked)."""
    if arrival != BACKLOG:
        return []
    out = []
    if runtime is not None and runtime not in HOLD_RUNTIMES:
        out.append("%s=%s is not supported on the %s runtime: only %s holds a scheduler until the release "
                   "(its processes are the toolkit's own there); use open-loop"
                   % (label % "arrival", BACKLOG, runtime, " and ".join(HOLD_RUNTIMES)))
    late = [job["arrival_s"] for job in jobs or () if job["arrival_s"] > 0]
    if late:
        out.append("%s=%s is not allowed with scenario %s: %d of its %d jobs arrive after the start (the last at "
                   "%g s), and a backlog is created whole before the release; use open-loop, or a scenario whose jobs "
                   "all arrive at once (burst, gang, fair-share)"
                   % (label % "arrival", BACKLOG, scenario_name or "?", len(late), len(jobs), max(late)))
    return out


def held_names(scheduler):
    """The pid-file names of the processes that hold ``scheduler`` (empty when its queues hold it)."""
    return tuple(descriptors.get(scheduler)["hold"].get("processes") or ())


def held_pid_files(scheduler, pid_files):
    """The pid files among ``pid_files`` of the processes that hold ``scheduler``."""
    names = held_names(scheduler)
    return [path for path in pid_files if os.path.basename(path)[:-len(".pid")] in names]


def hold_problem(scheduler, pid_files):
    """Why ``scheduler`` cannot be held with the pid files of its processes ``pid_files``, or None."""
    found = {os.path.basename(path)[:-len(".pid")] for path in held_pid_files(scheduler, pid_files)}
    missing = [name for name in held_names(scheduler) if name not in found]
    if missing:
        return ("workload.arrival=%s: scheduler %s cannot be held: scheduler_pid_files has no pid file of %s (a backlog "
                "needs the binary runtime, where the scheduler runs as the toolkit's own processes)"
                % (BACKLOG, scheduler, ", ".join(missing)))
    return None


def resource(text):
    """A descriptor's "group/version/plural" as (group, version, plural)."""
    group, version, plural = text.split("/")
    return group, version, plural


def backlog_resource(scheduler, pod_creation):
    """(group, version, plural) of the objects, one per job, that are the backlog of ``scheduler``'s held workload,
    or None when the backlog is the pods themselves (always with bench_pod_creation=direct)."""
    spec = descriptors.get(scheduler)["hold"].get("backlog")
    return resource(spec) if spec and pod_creation != DIRECT else None


class HoldError(Exception):
    """The scheduler could not be held or released; a sentence for the user."""


class Hold:
    """Holds one scheduler (``engage``) until ``release``; ``release`` is safe to call twice and after a failed
    ``engage`` (the load test calls it whatever happens, so that no scheduler stays stopped)."""

    def __init__(self, scheduler, pid_files, custom):
        self.scheduler = scheduler
        self.spec = descriptors.get(scheduler)["hold"]
        self.pid_files = held_pid_files(scheduler, pid_files)
        self.custom = custom
        self.stopped = []   # pids stopped
        self.queues = []    # names of the queues set to Hold

    def engage(self, deadline):
        for path in self.pid_files:
            pid = owned_pid(path)
            if pid is None:
                raise HoldError("cannot hold %s: its process (%s) is not running" % (self.scheduler, path))
            signal_group(pid, signal.SIGSTOP)
            self.stopped.append(pid)
        while any(process_state(pid) not in ("T", None) for pid in self.stopped):
            if time.monotonic() > deadline:
                raise HoldError("cannot hold %s: its processes did not stop" % self.scheduler)
            time.sleep(0.01)
        if self.spec.get("stop_policy"):
            self._hold_queues(deadline)

    def _hold_queues(self, deadline):
        group, version, plural = resource(self.spec["stop_policy"])
        names = [item["metadata"]["name"] for item in
                 self.custom.list_cluster_custom_object(group, version, plural)["items"]]
        if not names:
            raise HoldError("cannot hold %s: there is no %s to hold" % (self.scheduler, plural))
        for name in names:
            self._stop_policy(name, "Hold")
            self.queues.append(name)
        while True:
            active = [name for name in names if _active(self.custom.get_cluster_custom_object(group, version, plural,
                                                                                               name))]
            if not active:
                return
            if time.monotonic() > deadline:
                raise HoldError("cannot hold %s: %s %s still active after stopPolicy Hold"
                                % (self.scheduler, plural, ", ".join(active)))
            time.sleep(0.1)

    def _stop_policy(self, name, policy):
        group, version, plural = resource(self.spec["stop_policy"])
        self.custom.patch_cluster_custom_object(group, version, plural, name, {"spec": {"stopPolicy": policy}},
                                                _content_type="application/merge-patch+json")

    def release(self):
        """Continue the stopped processes and open the held queues; the sentences of what could not be released."""
        problems = []
        for pid in self.stopped:
            if not signal_group(pid, signal.SIGCONT):
                problems.append("process %d of %s is gone" % (pid, self.scheduler))
        self.stopped = []
        for name in list(self.queues):
            try:
                self._stop_policy(name, "None")
                self.queues.remove(name)
            except Exception as exc:  # noqa: BLE001 - the client raises many types; the sentence says which
                problems.append("%s stays on hold: %s" % (name, exc))
        return problems


def _active(queue):
    """Whether a ClusterQueue reports itself active (condition Active True)."""
    return any(condition.get("type") == "Active" and condition.get("status") == "True"
               for condition in (queue.get("status") or {}).get("conditions") or [])
