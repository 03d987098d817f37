"""The line callback_plugins/bench_interrupt.py prints when a run is interrupted."""
import signal

from bench_interrupt import interruption_line


def test_the_line_names_the_signal_the_task_and_the_command_that_fetches_the_results():
    line = interruption_line(signal.SIGTERM, "loadtest : Run the load test against default", "20261203T120000Z")
    assert line.startswith("Interrupted by SIGTERM during 'loadtest : Run the load test against default'.")
    assert "guard stops what this run started" in line
    assert line.endswith("make fetch RUN=20261203T120000Z")


def test_before_a_run_id_is_chosen_it_says_nothing_was_measured():
    line = interruption_line(signal.SIGINT, "", "")
    assert line.startswith("Interrupted by SIGINT. ")
    assert line.endswith("nothing was measured")
