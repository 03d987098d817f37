"""The walks through adding a runtime, a scheduler and a figure (docs/architecture.md, docs/adding-a-scheduler.md),
checked against the code: every file a walk names exists for every runtime, scheduler or measurement there is, the
names it tells a reader to add to are defined where it says, and the shared steps run in the order it gives."""
import os
import re

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils import runtimes, schedulers
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import measurements

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGINS = os.path.join(ROOT, "collections", "ansible_collections", "kube_sched_bench", "core", "plugins")
TASKS = os.path.join(ROOT, "roles", "scheduler", "tasks")


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as handle:
        return handle.read()


def section(text, heading):
    """The text under ``heading`` (a whole line), up to the next heading of any level."""
    return text.split("\n%s\n" % heading, 1)[1].split("\n#", 1)[0]


def steps(text):
    """The numbered steps of a walk, each as one string."""
    return [" ".join(step.split()) for step in re.split(r"\n(?=\d+\. )", "\n" + text.strip()) if step.strip()]


def quoted(text):
    return re.findall(r"`([^`]+)`", text)


def path_of(name):
    """A path as the docs write it: module_utils/ and plugin_utils/ under the collection's plugins."""
    return os.path.join(PLUGINS if name.startswith(("module_utils/", "plugin_utils/")) else ROOT, name)


def defines(path, name):
    """Whether the Python file ``path`` assigns ``name`` at its top level or defines it as a function."""
    with open(path, encoding="utf-8") as handle:
        return re.search(r"^(%s\s*=|def %s\()" % (re.escape(name), re.escape(name)), handle.read(), re.M) is not None


def runtime_walk():
    return steps(section(read("docs", "architecture.md"), "### Adding a runtime").split("\n\n`tests/", 1)[0])


def test_the_runtime_walk_names_files_every_runtime_has():
    walk = runtime_walk()
    assert "`module_utils/runtimes/<name>.py`" in walk[0]
    for name in ("KEYS", "DESCRIPTORS"):
        assert "`%s`" % name in walk[0] and defines(path_of("module_utils/runtimes/__init__.py"), name), name
    named_entries = [entry[:-4] for entry in quoted(walk[1]) if re.fullmatch(r"[a-z]+\.yml", entry)]
    assert named_entries == list(runtimes.ENTRY_POINTS), "the walk's entry points are not runtimes.ENTRY_POINTS"
    for runtime in runtimes.NAMES:
        assert os.path.isfile(path_of("module_utils/runtimes/%s.py" % runtime)), runtime
        folder = os.path.join(ROOT, "playbooks", "tasks", "runtimes", runtime)
        for entry in list(runtimes.ENTRY_POINTS) + list(runtimes.DESCRIPTORS[runtime]["entries"]):
            assert os.path.isfile(os.path.join(folder, entry + ".yml")), (runtime, entry)
        assert "cluster_record_problems('%s')" % runtime in read(folder, "start.yml"), runtime


def test_the_runtime_walk_names_each_schedulers_deployment_file():
    assert "`roles/scheduler/tasks/<scheduler>/<name>.yml`" in runtime_walk()[2]
    for scheduler, descriptor in schedulers.DESCRIPTORS.items():
        assert sorted(name[:-4] for name in os.listdir(os.path.join(TASKS, scheduler))
                      if name[:-4] in runtimes.NAMES) == sorted(descriptor["runtimes"]), scheduler


def scheduler_walk():
    return steps(section(read("docs", "adding-a-scheduler.md"), "## The files a new scheduler adds").split(
        "So a sixth scheduler is, in order:", 1)[1])


def test_the_scheduler_walk_names_files_every_scheduler_has():
    walk = scheduler_walk()
    assert "`module_utils/schedulers/<name>.py`" in walk[0]
    assert "`MODULES`" in walk[1] and defines(path_of("module_utils/schedulers/__init__.py"), "MODULES")
    assert list(schedulers.MODULES) == list(schedulers.NAMES)
    for scheduler, descriptor in schedulers.DESCRIPTORS.items():
        assert os.path.isfile(path_of("module_utils/schedulers/%s.py" % scheduler)), scheduler
        for runtime in ("binary", "kind"):
            assert ("`%s.yml`" % runtime in walk[2]) and (
                os.path.isfile(os.path.join(TASKS, scheduler, runtime + ".yml")) is (runtime in descriptor["runtimes"]))


def own_files_expected(descriptor):
    """The files of its folder the walk asks for by what its descriptor has: init.yml with local.init, knobs.yml
    with knobs."""
    return {"init.yml": bool((descriptor.get("local") or {}).get("init")), "knobs.yml": bool(descriptor.get("knobs"))}


def test_init_and_knobs_files_are_there_exactly_when_the_descriptor_has_them():
    walk = scheduler_walk()
    for scheduler, descriptor in schedulers.DESCRIPTORS.items():
        for name, wanted in own_files_expected(descriptor).items():
            assert "`%s`" % name in walk[2]
            assert os.path.isfile(os.path.join(TASKS, scheduler, name)) is wanted, (scheduler, name)


def documented_shared_steps(text):
    """The task files of the documented shared steps, in order: each step's first quoted .yml file, <name>/... for the
    scheduler's own files."""
    out = []
    for step in steps(section(text, "### The binary runtime's shared steps").split(
            "`roles/scheduler/tasks/binary.yml` does, from the descriptor's `local` (keys below):", 1)[1]):
        files = [name for name in quoted(step) if name.endswith(".yml")]
        if files:
            out.append(files[0])
    return out


def included_shared_steps(text):
    """The task files roles/scheduler/tasks/binary.yml includes, in order, the scheduler's own as <name>/..."""
    out = []
    for target in re.findall(r"include_tasks: \"?([^\"\n]+)\"?", text):
        target = target.replace("{{ scheduler_name }}", "<name>").replace("{{ scheduler_own_steps }}", "<name>/binary.yml")
        out.append(target.strip())
    return out


def test_the_shared_steps_run_in_the_order_the_walk_gives():
    assert documented_shared_steps(read("docs", "adding-a-scheduler.md")) == included_shared_steps(
        read("roles", "scheduler", "tasks", "binary.yml"))


def test_a_step_out_of_order_is_found():
    text = read("docs", "adding-a-scheduler.md")
    planted = text.replace("(`ports.yml`, `scheduler_ports`)", "(`crds.yml`)", 1)
    assert planted != text
    assert documented_shared_steps(planted) != included_shared_steps(read("roles", "scheduler", "tasks", "binary.yml"))


def figure_walk():
    return steps(section(read("docs", "architecture.md"), "### Adding a figure").split("\n\nNothing else", 1)[0])


def test_the_figure_walk_names_what_every_measurement_has():
    walk = figure_walk()
    folder = "module_utils/loadtest/measurements/"
    assert "`%s`" % folder in walk[0]
    assert "`REGISTERED`" in walk[0] and defines(path_of(folder + "__init__.py"), "REGISTERED")
    modules = sorted(name[:-3] for name in os.listdir(path_of(folder)) if name.endswith(".py")
                     and name not in ("__init__.py", "contract.py"))
    assert len(modules) == len(measurements.REGISTERED)
    for module in modules:
        for name in ("KEYS", "MEASUREMENT", "gather"):
            assert "`%s`" % name in walk[0] and defines(path_of(folder + module + ".py"), name), (module, name)
    assert "`schemas/summary.schema.json`" in walk[2] and os.path.isfile(path_of("schemas/summary.schema.json"))


@pytest.mark.parametrize("name", ["KEYS", "gather"])
def test_a_name_no_module_defines_is_found(tmp_path, name):
    planted = tmp_path / "planted.py"
    planted.write_text("OTHER = 1\n\ndef other():\n    pass\n", encoding="utf-8")
    assert not defines(str(planted), name)
