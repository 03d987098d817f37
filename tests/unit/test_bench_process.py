"""The CPU limit of library/bench_process.py: which CPUs a limited process runs on."""
import bench_process


def test_a_limit_takes_that_many_of_the_allowed_cpus():
    assert bench_process.pick_cpus({0, 1, 2, 3}, 2) == {2, 3}
    assert bench_process.pick_cpus({4, 9, 7}, 1) == {9}


def test_no_limit_or_a_limit_above_the_machine_restricts_nothing():
    assert bench_process.pick_cpus({0, 1}, 0) is None
    assert bench_process.pick_cpus({0, 1}, 2) is None
    assert bench_process.pick_cpus({0, 1}, 8) is None


def test_stopping_a_directory_takes_the_others_at_once_then_the_last_in_order():
    names = ["kube-apiserver", "etcd", "kube-scheduler", "loadtest", "kwok", "kube-controller-manager"]
    assert bench_process.stop_order(names, ["kwok", "kube-controller-manager", "kube-apiserver", "etcd"]) == [
        ["kube-scheduler", "loadtest"], ["kwok"], ["kube-controller-manager"], ["kube-apiserver"], ["etcd"]]


def test_stopping_a_directory_skips_what_has_no_pid_file():
    assert bench_process.stop_order(["etcd"], ["kwok", "etcd"]) == [["etcd"]]
    assert bench_process.stop_order([], ["etcd"]) == []


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
