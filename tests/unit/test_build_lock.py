"""locked_build: two builds of one thing into one cache take turns, and the second is skipped once the first has
left its stamp (run for real with flock and sh)."""
import subprocess
import time

from build_lock import locked_build


def build(tmp_path, name, seconds):
    """A build that takes ``seconds``, notes that it ran, then writes the stamp."""
    script = "echo start %s >> %s; sleep %s; echo end %s >> %s; touch %s" % (
        name, tmp_path / "log", seconds, name, tmp_path / "log", tmp_path / "stamp")
    return subprocess.Popen(locked_build(["sh", "-c", script], tmp_path / "build.lock", tmp_path / "stamp"))


def test_a_second_build_waits_for_the_first_and_is_skipped_when_it_finished(tmp_path):
    first = build(tmp_path, "a", 1)
    time.sleep(0.3)
    second = build(tmp_path, "b", 0)
    assert (first.wait(10), second.wait(10)) == (0, 0)
    assert (tmp_path / "log").read_text().split("\n") == ["start a", "end a", ""]


def test_builds_take_turns_while_none_has_finished(tmp_path):
    # No stamp is left by these: each runs, one after the other, never both at once.
    script = "echo start >> {log}; sleep 0.5; echo end >> {log}".format(log=tmp_path / "log")
    runs = [subprocess.Popen(locked_build(["sh", "-c", script], tmp_path / "build.lock", tmp_path / "never"))
            for _ in range(2)]
    assert [run.wait(10) for run in runs] == [0, 0]
    assert (tmp_path / "log").read_text().split("\n") == ["start", "end", "start", "end", ""]


def test_the_exit_code_of_the_build_is_kept(tmp_path):
    assert subprocess.run(locked_build(["sh", "-c", "exit 3"], tmp_path / "l", tmp_path / "s"),
                          check=False).returncode == 3
