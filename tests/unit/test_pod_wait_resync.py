"""When the wait on the pods lists them again (loadtest/pod_wait.py): only when the watch is stuck, neither progress
nor a word from it in longer than the server keeps a watch open, never because the scheduler is slow (a list of
100,000 pods took 16 to 70 s of the window). A virtual clock, a watch that is told whether it speaks."""
import types

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import pod_wait
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.client import (
    WATCH_SILENT_S,
    WATCH_TIMEOUT_S,
    PodCounts,
)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


class Watch:
    """No pod is ever bound; ``speaks``: the server sends something every second (events of other pods, bookmarks)."""

    def __init__(self, clock, speaks):
        self.clock, self.speaks, self.resyncs, self.error = clock, speaks, [], None
        self.heard = clock.now

    def counts(self):
        return PodCounts(3, 0, 0)

    def silent_for(self):
        if self.speaks:
            self.heard = self.clock.now - (self.clock.now % 1.0)
        return self.clock.now - self.heard

    def is_alive(self):
        return True

    def resync(self):
        self.resyncs.append(self.clock.now)
        self.heard = self.clock.now


class Waits(pod_wait.PodWaits):
    def __init__(self, watch):
        self.watch, self.submitted = watch, [{"name": "job-0", "pods_per_job": 3}]
        self.workload = {"wait_for": "bound", "timeout": 300}
        self.progress = types.SimpleNamespace(phase=lambda *a, **k: None, update=lambda **k: None)

    def pods_total(self, jobs=None):
        return 3


def wait(monkeypatch, speaks, seconds):
    clock = Clock()
    monkeypatch.setattr(pod_wait, "time", clock)
    watch = Watch(clock, speaks)
    why = Waits(watch).wait_pods(clock.now + seconds)
    return watch.resyncs, why


def test_a_slow_scheduler_with_a_speaking_watch_is_never_listed_again(monkeypatch):
    resyncs, why = wait(monkeypatch, speaks=True, seconds=600)
    assert resyncs == []
    assert why.startswith("timed out after 300s waiting for pods to be bound: 3 created, 0 bound"), why


def test_a_silent_watch_is_listed_once_per_silence_longer_than_the_server_keeps_it(monkeypatch):
    assert WATCH_SILENT_S > WATCH_TIMEOUT_S
    resyncs, _ = wait(monkeypatch, speaks=False, seconds=3 * WATCH_SILENT_S + 5)
    assert len(resyncs) == 3, resyncs
    gaps = [later - earlier for earlier, later in zip([1000.0] + resyncs, resyncs)]
    assert all(WATCH_SILENT_S < gap < WATCH_SILENT_S + 1 for gap in gaps), gaps
