"""A scenario file edited once, as a user would mistype it, and what loading it says: for the tests of each bad value."""
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec


def problems_after_edit(example, old, new, tmp_path):
    """(path, problems): ``example`` with its first ``old`` replaced by ``new``, written to ``tmp_path``, loaded."""
    with open(example, encoding="utf-8") as handle:
        text = handle.read()
    assert old in text, "the example no longer has %r" % old
    path = tmp_path / "s.yml"
    path.write_text(text.replace(old, new, 1))
    return path, spec.load(str(path))[1]
