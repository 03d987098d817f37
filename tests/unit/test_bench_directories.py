"""library/bench_directories.py: which paths are directories."""
import bench_directories


def test_paths_are_split_by_being_a_directory_in_their_order(tmp_path):
    (tmp_path / "mirror").mkdir()
    (tmp_path / "file").write_text("")
    paths = [str(tmp_path / "file"), str(tmp_path / "mirror"), str(tmp_path / "absent")]
    assert bench_directories.split_directories(paths) == (
        [str(tmp_path / "mirror")], [str(tmp_path / "file"), str(tmp_path / "absent")])
    assert bench_directories.split_directories([]) == ([], [])
