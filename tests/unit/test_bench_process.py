"""The CPU limit of library/bench_process.py: which CPUs a limited process runs on."""
import bench_process


def test_a_limit_takes_that_many_of_the_allowed_cpus():
    assert bench_process.pick_cpus({0, 1, 2, 3}, 2) == {2, 3}
    assert bench_process.pick_cpus({4, 9, 7}, 1) == {9}


def test_no_limit_or_a_limit_above_the_machine_restricts_nothing():
    assert bench_process.pick_cpus({0, 1}, 0) is None
    assert bench_process.pick_cpus({0, 1}, 2) is None
    assert bench_process.pick_cpus({0, 1}, 8) is None
