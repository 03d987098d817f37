"""The CPU limit of library/bench_process.py: which CPUs a limited process runs on."""
import bench_process


def test_a_limit_takes_that_many_of_the_allowed_cpus():
    assert bench_process.pick_cpus({0, 1, 2, 3}, 2) == {2, 3}
    assert bench_process.pick_cpus({4, 9, 7}, 1) == {9}


def test_no_limit_or_a_limit_above_the_machine_restricts_nothing():
    assert bench_process.pick_cpus({0, 1}, 0) is None
    assert bench_process.pick_cpus({0, 1}, 2) is None
    assert bench_process.pick_cpus({0, 1}, 8) is None


CLUSTER = ["kwok", "kube-controller-manager", "kube-apiserver", "etcd"]


def test_stopping_a_directory_takes_the_others_at_once_then_the_last_in_order():
    names = ["kube-apiserver", "etcd", "kube-scheduler", "loadtest", "kwok", "kube-controller-manager"]
    assert bench_process.stop_order(names, CLUSTER) == [
        (["kube-scheduler", "loadtest"], None), (["kwok"], None), (["kube-controller-manager"], None),
        (["kube-apiserver"], None), (["etcd"], None)]
    # A cluster torn down with its directory: the scheduler and the load test stop gracefully (the load test
    # writes what it measured), then the cluster's components are killed together.
    assert bench_process.stop_order(names, CLUSTER, discarded=True) == [
        (["kube-scheduler", "loadtest"], None), (["kwok", "kube-controller-manager", "kube-apiserver", "etcd"], 0.0)]


def test_stopping_a_directory_skips_what_has_no_pid_file():
    assert bench_process.stop_order(["etcd"], ["kwok", "etcd"]) == [(["etcd"], None)]
    assert bench_process.stop_order([], ["etcd"]) == []
    assert bench_process.stop_order([], ["etcd"], discarded=True) == []
    assert bench_process.stop_order(["loadtest"], CLUSTER, discarded=True) == [(["loadtest"], None)]


def test_stop_group_ends_real_processes_and_their_children(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    children = [subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; "
                                  "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
                                  "time.sleep(60)"], start_new_session=True) for _ in range(2)]
    time.sleep(0.3)
    bench_process.stop_group([child.pid for child in children], timeout=30)
    # Each ended on the SIGTERM to its group, not on the SIGKILL that follows the timeout.
    assert [child.wait(timeout=5) for child in children] == [-signal.SIGTERM, -signal.SIGTERM]
