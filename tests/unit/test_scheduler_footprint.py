"""How many files name each scheduler outside its own files (its task files and templates in roles/scheduler, a
descriptor schedulers/<name>.yml), the docs and the tests: printed, and held at most at BUDGET, so that adding a
scheduler does not get dearer (issue 30 asks for 3 once the scheduler descriptors exist)."""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Counted on 2026-12-03, before the scheduler descriptors.
BUDGET = {"kueue": 25, "volcano": 25, "yunikorn": 25, "coscheduling": 21}


def own_file(name, path):
    return bool(re.match(r"^(schedulers/%s\.yml|roles/scheduler/(tasks|templates)/([a-z]+-)?%s[-.].*)$" % (name, name),
                         path))


def elsewhere(name):
    """Tracked files that name ``name`` (any case), but for its own files, docs, Markdown, molecule and tests."""
    listed = subprocess.run(["git", "-C", ROOT, "grep", "-il", name, "--", ".", ":!tests", ":!docs", ":!*.md",
                             ":!molecule"], capture_output=True, text=True, check=False)
    assert listed.returncode in (0, 1), listed.stderr
    return sorted(path for path in listed.stdout.split() if not own_file(name, path))


def test_files_naming_each_scheduler_stay_within_budget():
    counts = {name: elsewhere(name) for name in BUDGET}
    for name, paths in counts.items():
        print("%s is named in %d files outside its own: %s" % (name, len(paths), " ".join(paths)))
    over = {name: len(paths) for name, paths in counts.items() if len(paths) > BUDGET[name]}
    assert over == {}, "more files name these schedulers than before: %s (budget %s)" % (over, BUDGET)


def test_a_schedulers_own_files_are_recognised():
    assert own_file("kueue", "roles/scheduler/tasks/binary-kueue.yml")
    assert own_file("volcano", "roles/scheduler/templates/volcano-queue.yaml.j2")
    assert own_file("yunikorn", "schedulers/yunikorn.yml")
    assert not own_file("kueue", "module_utils/sched_workloads.py")
