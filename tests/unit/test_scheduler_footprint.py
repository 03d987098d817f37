"""How many files name each scheduler outside its own files, the docs and the tests: printed, and held at most at
BUDGET (issue 30: 3), so that adding a scheduler stays its descriptor plus its own task files.

A scheduler's own files are its descriptor, module_utils/schedulers/<name>.py, and every file named after it:
<name>.<ext>, <name>-<what> or <name>_<what>, or <runtime>-<name>.<ext>, and every task file of a folder named after it
(roles/scheduler/tasks/kueue/binary.yml, roles/scheduler/templates/volcano-processes.yaml.j2,
roles/scheduler/templates/yunikorn-configs.yaml.j2).
docs/adding-a-scheduler.md lists the files that remain: the descriptors' registry and the workload builders."""
import os
import re
import subprocess

from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUDGET = 3
# "default" is a word of the language as well as the baseline's name: counted by its descriptor only.
COUNTED = [name for name in schedulers.NAMES if name != "default"]


def own_file(name, path):
    return bool(re.search(r"(^|/)(([a-z]+-)?%s[-_.][^/]*|tasks/%s/[^/]*)$" % (re.escape(name), re.escape(name)), path))


def elsewhere(name, root=ROOT):
    """Tracked files that name ``name`` (any case), but for its own files, docs, Markdown, molecule and tests."""
    listed = subprocess.run(["git", "-C", root, "grep", "-il", name, "--", ".", ":!tests", ":!docs", ":!*.md",
                             ":!molecule"], capture_output=True, text=True, check=False)
    assert listed.returncode in (0, 1), listed.stderr
    return sorted(path for path in listed.stdout.split() if not own_file(name, path))


def test_files_naming_each_scheduler_stay_within_budget():
    counts = {name: elsewhere(name) for name in COUNTED}
    for name, paths in counts.items():
        print("%s is named in %d files outside its own: %s" % (name, len(paths), " ".join(paths)))
    over = {name: len(paths) for name, paths in counts.items() if len(paths) > BUDGET}
    assert over == {}, "more than %d files name these schedulers: %s" % (BUDGET, over)


def test_a_schedulers_own_files_are_recognised():
    assert own_file("kueue", "roles/scheduler/tasks/kueue/binary.yml")
    assert own_file("kueue", "roles/scheduler/tasks/kueue/init.yml")
    assert own_file("volcano", "roles/scheduler/templates/volcano-processes.yaml.j2")
    assert own_file("yunikorn", "module_utils/schedulers/yunikorn.py")
    assert own_file("yunikorn", "filter_plugins/yunikorn_queues.py")
    assert not own_file("kueue", "module_utils/loadtest/workloads.py")
    assert not own_file("kueue", "module_utils/kueuelike.py")
    assert not own_file("volcano", "roles/volcano/tasks/main.yml")


def test_a_scheduler_named_in_a_shared_file_is_counted(tmp_path):
    files = {
        "module_utils/schedulers/kueue.py": "name = 'kueue'",
        "roles/scheduler/tasks/kueue/binary.yml": "# Kueue's manager",
        "module_utils/sched_shared.py": "# admits like Kueue does",
        "docs/kueue-notes.txt": "Kueue",
        "README.md": "Kueue",
        "tests/test_x.py": "kueue",
        "module_utils/untracked.py": "kueue",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add"] + [path for path in files if "untracked" not in path],
                   check=True)
    assert elsewhere("kueue", str(tmp_path)) == ["module_utils/sched_shared.py"]
