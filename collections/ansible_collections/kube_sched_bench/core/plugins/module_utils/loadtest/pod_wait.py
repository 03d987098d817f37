# -*- coding: utf-8 -*-
"""The load test's waits on its watch of the pods (client.PodWatch): until every expected pod is bound or done, and,
in backlog mode, until the held workload exists whole (``PodWaits``, a part of load.LoadTest)."""
from __future__ import annotations

import time

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import hold
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.client import WATCH_SILENT_S, list_pages


class PodWaits:
    """The waits of load.LoadTest: its attributes are the load test's (p, workload, watch, custom, progress,
    submitted, timed_out)."""

    def wait_pods(self, deadline):
        """Wait until every expected pod is bound or done; return None or why it stopped early."""
        expected = self.pods_total("submitted")
        # A job is bound when it holds all its pods: a preempted pod counts through its replacement.
        needs = {job["name"]: job["pods_per_job"] for job in self.submitted}
        last_count, last_change = -1, time.monotonic()
        self.progress.phase("wait", total=expected)
        while time.monotonic() < deadline:
            counts = self.watch.counts()
            count = counts.bound if self.workload["wait_for"] == "bound" else counts.completed
            self.progress.update(count=count, pods_created=counts.created, pods_bound=counts.bound,
                                 pods_completed=counts.completed, pods_expected=expected,
                                 wait_for=self.workload["wait_for"])
            if count >= expected and (self.workload["wait_for"] != "bound" or self.watch.jobs_held(needs) == len(needs)):
                return None
            if not self.watch.is_alive():
                return "lost the watch on pods: %s" % (self.watch.error or "it stopped")
            if count != last_count:
                last_count, last_change = count, time.monotonic()
            elif time.monotonic() - last_change > WATCH_SILENT_S and self.watch.silent_for() > WATCH_SILENT_S:
                # Neither progress nor a word from the watch in longer than the server keeps it open: the watch is
                # stuck; list once. A watch that lags still speaks and catches up by itself.
                try:
                    self.watch.resync()
                except Exception:  # noqa: BLE001 - the watch itself reports lasting trouble
                    pass
                last_change = time.monotonic()
            time.sleep(0.1)
        counts = self.watch.counts()
        self.timed_out = True
        return ("timed out after %gs waiting for pods to be %s: %d created, %d bound, %d completed of %d"
                % (self.workload["timeout"], self.workload["wait_for"], counts.created, counts.bound, counts.completed, expected))

    def wait_backlog(self, deadline):
        """Backlog mode: wait until the held workload exists whole (every pod of the submitted jobs, or one object
        per job where the pods appear only after the release: the descriptor's hold.backlog); None or why not."""
        kind = hold.backlog_resource(self.p["scheduler"], self.workload["pod_creation"])
        wanted = len(self.submitted) if kind else self.pods_total("submitted")
        what = kind[2] if kind else "pods"
        self.progress.phase("backlog", total=wanted)
        count = 0
        while time.monotonic() < deadline:
            if kind:
                objects = list_pages(self.custom.list_namespaced_custom_object, kind[0], kind[1], self.p["namespace"],
                                     kind[2])
                next(objects)
                count = sum(1 for _ in objects)
            else:
                count = self.watch.counts().created
            self.progress.update(count=count)
            if count >= wanted:
                return None
            time.sleep(0.25)
        self.timed_out = True
        return ("timed out after %gs waiting for the held backlog: %d of %d %s exist"
                % (self.workload["timeout"], count, wanted, what))

