"""library/bench_process.py: the CPU limit, the order of stopping and of starting several components."""
import bench_process
import pytest


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


class Exited(Exception):
    pass


class FakeModule:
    """The part of AnsibleModule that start_all uses: exit_json and fail_json end it, as they do a module."""
    check_mode = False

    def exit_json(self, **result):
        raise Exited(result)

    def fail_json(self, **result):
        raise Exited(dict(result, failed=True))


def test_an_entry_that_does_not_wait_starts_the_next_at_once_and_both_are_waited_for(tmp_path):
    """The first component answers its ready URL only once the second has started: one after the other, each
    ready before the next, it would time out; with wait_before_next=false both start and become ready."""
    import socket
    import sys
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    marker = tmp_path / "second-started"
    first = ("import http.server, os, sys, time\n"
             "while not os.path.exists(sys.argv[1]): time.sleep(0.02)\n"
             "http.server.HTTPServer(('127.0.0.1', int(sys.argv[2])), http.server.SimpleHTTPRequestHandler)"
             ".serve_forever()\n")
    second = "import sys, time\nopen(sys.argv[1], 'w').close()\ntime.sleep(60)\n"
    params = {key: None for key in bench_process.COMPONENT_OPTIONS}
    params.update(env={}, chdir=str(tmp_path), ready_timeout=5.0, stop_timeout=5.0, log_tail=5, cpus=0,
                  directories=[], files=[], directory_mode="0700", processes=[
                      {"name": "first", "argv": [sys.executable, "-c", first, str(marker), str(port)],
                       "ready_url": "http://127.0.0.1:%d/" % port, "wait_before_next": False,
                       "pid_file": str(tmp_path / "first.pid"), "log_file": str(tmp_path / "first.log")},
                      {"name": "second", "argv": [sys.executable, "-c", second, str(marker)],
                       "pid_file": str(tmp_path / "second.pid"), "log_file": str(tmp_path / "second.log")}])
    try:
        with pytest.raises(Exited) as ended:
            bench_process.start_all(FakeModule(), params)
        result = ended.value.args[0]
        assert not result.get("failed"), result
        assert result["changed"] and sorted(result["ready_s"]) == ["first", "second"]
        params["processes"][0]["wait_before_next"] = True
        bench_process.stop_group([int((tmp_path / name).read_text()) for name in ("first.pid", "second.pid")],
                                 timeout=5)
        marker.unlink()
        params["ready_timeout"] = 1.0
        with pytest.raises(Exited, match="first did not become ready"):
            bench_process.start_all(FakeModule(), params)
    finally:
        bench_process.stop_group([int((tmp_path / name).read_text()) for name in ("first.pid", "second.pid")
                                  if (tmp_path / name).exists()], timeout=5)


def test_an_entry_with_a_wait_before_next_that_is_no_boolean_is_refused_before_anything_starts(tmp_path):
    params = {key: None for key in bench_process.COMPONENT_OPTIONS}
    params.update(env={}, ready_timeout=2.0, stop_timeout=5.0, log_tail=5, cpus=0, directories=[], files=[],
                  directory_mode="0700", processes=[
                      {"name": "etcd", "argv": ["/bin/sleep", "60"], "wait_before_next": "later",
                       "pid_file": str(tmp_path / "etcd.pid"), "log_file": str(tmp_path / "etcd.log")}])
    with pytest.raises(Exited, match="wait_before_next of etcd must be true or false, got 'later'"):
        bench_process.start_all(FakeModule(), params)
    assert not (tmp_path / "etcd.pid").exists()
