"""The pid files every started process keeps (module_utils/host/pid_file.py)."""
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import pid_file as bench_pid_file


def test_a_pid_file_is_written_whole_and_nothing_else_is_left(tmp_path):
    path = tmp_path / "loadtest.pid"
    bench_pid_file.write_pid_file(str(path), 4242)
    assert path.read_text() == "4242\n"
    assert [entry.name for entry in tmp_path.iterdir()] == ["loadtest.pid"]


def test_removing_a_pid_file_its_process_removed_already_is_no_error(tmp_path):
    """The race of issue 11's teardown test: the load test, stopped, removes its own pid file first."""
    path = tmp_path / "loadtest.pid"
    bench_pid_file.write_pid_file(str(path), 1)
    bench_pid_file.remove_pid_file(str(path))
    assert not path.exists()
    bench_pid_file.remove_pid_file(str(path))
