"""module_utils/host/atomic.py: the one way the toolkit writes a file whole."""
import os

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import differs, write_atomically


def test_a_file_is_replaced_whole_with_its_mode_and_nothing_left_beside_it(tmp_path):
    path = str(tmp_path / "sub" / "state.json")
    write_atomically(path, "{}\n", make_dirs=True)
    assert open(path, encoding="utf-8").read() == "{}\n" and (os.stat(path).st_mode & 0o777) == 0o644
    write_atomically(path, b"\x00key", 0o600)
    assert open(path, "rb").read() == b"\x00key" and (os.stat(path).st_mode & 0o777) == 0o600
    assert os.listdir(tmp_path / "sub") == ["state.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = str(tmp_path / "state.json")
    write_atomically(path, "old")
    with pytest.raises(TypeError):
        write_atomically(path, 42)
    assert open(path, encoding="utf-8").read() == "old" and os.listdir(tmp_path) == ["state.json"]
    with pytest.raises(FileNotFoundError):
        write_atomically(str(tmp_path / "missing" / "x"), "text")


def test_differs_says_whether_a_file_holds_the_content_already(tmp_path):
    path = tmp_path / "f"
    assert differs(str(path), b"x")
    path.write_bytes(b"x")
    assert not differs(str(path), b"x") and differs(str(path), b"y")
