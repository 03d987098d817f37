"""Capacity, makespan bound and efficiency (module_utils/cluster/capacity.py), on hand-computed cases."""
import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import capacity as c
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import rules
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import knob_checks

# The seed's workload: 100 nodes of 32 CPU / 256Gi / 110 pods, 1000 jobs of 3 pods of 1 CPU / 200Mi, 30 s.
SEED = dict(nodes=100, node_cpu="32", node_memory="256Gi", node_pods=110, jobs=1000, pods_per_job=3, pod_cpu="1",
            pod_memory="200Mi", pod_duration=30.0, wait_for="bound", queue_quota="cluster")


def work(**changes):
    return dict(SEED, **changes)


def test_cluster_quota_is_the_fake_nodes_allocatable():
    assert rules.queue_quota("cluster", SEED) == {"cpu": "3200", "memory": "25Ti"}
    assert rules.queue_quota("cluster", work(nodes=3, node_cpu="1500m", node_memory="1000Mi")) == {
        "cpu": "4500m", "memory": "3000Mi"}
    assert rules.queue_quota("seed") == {"cpu": "1000", "memory": "1000Gi"}
    assert rules.queue_quota({"cpu": 12, "memory": "3Gi"}) == {"cpu": "12", "memory": "3Gi"}


@pytest.mark.parametrize("size,text", [(25 * 2 ** 40, "25Ti"), (3 * 2 ** 30 + 2 ** 20, "3073Mi"), (1234, "1234"),
                                       (0, "0")])
def test_format_memory_uses_the_largest_exact_suffix(size, text):
    assert rules.format_memory(size) == text


def test_every_pod_fits_at_once_so_capacity_bounds_nothing():
    for scheduler in knob_checks.SCHEDULERS:
        bound = c.makespan_bound(SEED, scheduler)
        assert bound["waves"] == 1 and bound["seconds"] == 0.0, scheduler
        assert c.capacity_summary(SEED, scheduler, 57.1)["efficiency"] is None
    assert c.capacity(SEED, "default") == {"cpu": 3200.0, "memory": "25Ti", "memory_bytes": 25 * 2 ** 40,
                                           "pods": 11000, "limited_by": "cluster"}
    assert c.capacity(SEED, "kueue")["limited_by"] == "queue quota (cluster)"


def test_the_seed_quota_makes_waves_of_whole_jobs_or_of_pods():
    seed = work(queue_quota="seed")
    # Kueue admits whole jobs of 3 CPU: 333 at once, 1000 jobs in 4 waves, the last bound after 3 x 30 s.
    assert c.makespan_bound(seed, "kueue") == {"unit": "job", "at_once": 333, "waves": 4, "seconds": 90.0}
    assert c.makespan_bound(seed, "volcano")["seconds"] == 90.0
    # YuniKorn places pods one by one: 1000 at once, 3000 pods in 3 waves.
    assert c.makespan_bound(seed, "yunikorn") == {"unit": "pod", "at_once": 1000, "waves": 3, "seconds": 60.0}
    # The quota does not apply to the schedulers without queues.
    assert c.makespan_bound(seed, "default")["seconds"] == 0.0
    assert c.capacity(seed, "volcano") == {"cpu": 1000.0, "memory": "1000Gi", "memory_bytes": 1000 * 2 ** 30,
                                           "pods": 11000, "limited_by": "queue quota (seed)"}
    summary = c.capacity_summary(seed, "kueue", 180.0)
    assert summary["efficiency"] == 0.5 and summary["makespan_bound"]["seconds"] == 90.0


def test_the_nodes_pod_count_limits():
    # 10 nodes of 5 pods: 50 pods at once (CPU and memory would allow far more).
    small = work(nodes=10, node_pods=5, pod_cpu="100m", jobs=50)
    assert c.pods_per_node(small) == 5
    # 150 pods in waves of 50: 3 waves.
    assert c.makespan_bound(small, "default") == {"unit": "pod", "at_once": 50, "waves": 3, "seconds": 60.0}
    # Gangs of 3: 16 at once, 50 jobs in 4 waves.
    assert c.makespan_bound(small, "coscheduling") == {"unit": "job", "at_once": 16, "waves": 4, "seconds": 90.0}


def test_memory_and_fractional_cpu():
    # 32 CPU / 100m is 320 pods a node exactly (floating point would give 319).
    assert c.pods_per_node(work(pod_cpu="100m", node_pods=1000)) == 320
    # An explicit quota of 1Gi holds 5 pods of 200Mi.
    tight = work(queue_quota={"cpu": "100", "memory": "1Gi"}, jobs=4)
    assert c.makespan_bound(tight, "yunikorn") == {"unit": "pod", "at_once": 5, "waves": 3, "seconds": 60.0}
    assert c.makespan_bound(tight, "kueue") == {"unit": "job", "at_once": 1, "waves": 4, "seconds": 90.0}


def test_no_unit_fits():
    assert c.makespan_bound(work(queue_quota={"cpu": "2", "memory": "1Gi"}), "kueue")["seconds"] is None


@pytest.mark.parametrize("bound,makespan,expected", [(90.0, 180.0, 0.5), (0.0, 50.0, None), (90.0, None, None),
                                                     (30.0, 30.0, 1.0)])
def test_efficiency(bound, makespan, expected):
    assert c.efficiency(bound, makespan) == expected


def test_capacity_note_when_nodes_are_too_small():
    assert c.capacity_note(SEED) is None
    assert "hold 3 pods at once" in c.capacity_note(work(nodes=1, node_pods=3))


@pytest.mark.parametrize("scheduler,pod_creation,maker", [
    ("default", "job-controller", "job controller"), ("coscheduling", "job-controller", "job controller"),
    ("kueue", "job-controller", "admission"), ("volcano", "job-controller", "admission"),
    ("default", "direct", "load test"), ("volcano", "direct", "load test"), ("yunikorn", "direct", "load test")])
def test_what_makes_the_pods_appear(scheduler, pod_creation, maker):
    """Volcano's controller creates a vcjob's pods once it is admitted; pods created directly exist before that."""
    assert c.pods_made_by(scheduler, pod_creation) == maker
