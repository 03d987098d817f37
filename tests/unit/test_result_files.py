"""pods.csv and jobs.csv stored compressed, and read in either form (module_utils/result/files.py)."""
import gzip

from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import files as f


def test_pods_and_jobs_are_stored_compressed_and_the_rest_plain():
    assert [f.stored_name(name) for name in ("pods.csv", "jobs.csv", "timeline.csv", "summary.json")] == [
        "pods.csv.gz", "jobs.csv.gz", "timeline.csv", "summary.json"]
    assert gzip.decompress(f.encode("pods.csv", "a,b\n1,2\n")) == b"a,b\n1,2\n"
    assert f.encode("timeline.csv", "x\n") == b"x\n"
    # No time stamp in the gzip header: the same rows give the same bytes.
    assert f.encode("jobs.csv", "x\n") == f.encode("jobs.csv", "x\n")


def test_a_result_file_is_read_compressed_or_as_an_older_version_wrote_it(tmp_path):
    (tmp_path / "pods.csv.gz").write_bytes(f.encode("pods.csv", "pod\np1\n"))
    (tmp_path / "jobs.csv").write_text("job\nj1\n")
    assert f.read_text(str(tmp_path), "pods.csv") == "pod\np1\n"
    assert f.read_text(str(tmp_path), "jobs.csv") == "job\nj1\n"
    assert f.read_text(str(tmp_path), "timeline.csv") == ""
    (tmp_path / "pods.csv.gz").write_bytes(b"\x1f\x8b cut short")
    assert f.read_text(str(tmp_path), "pods.csv") == ""
