"""Start the molecule scenarios' lanes as soon as the session knows its tests (test_molecule.py)."""
import pathlib
import tempfile


def pytest_collection_finish(session):
    if session.config.option.collectonly:
        return
    import test_molecule  # the test module beside this file, imported by pytest under this name

    log_dir = pathlib.Path(tempfile.mkdtemp(prefix="sched-bench-molecule-"))
    session.config._molecule_lanes = test_molecule.start_lanes(session, log_dir)
