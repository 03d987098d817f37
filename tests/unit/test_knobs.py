"""The knob table (module_utils/knobs/table.py of the collection) is the one declaration: the files made from it are fresh, and a
default changed there changes the defaults, the docs, the workload and env.json with no other edit."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import rules as sched_rules
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import table as sched_knobs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "hack"))

import knobs as generator  # noqa: E402 - hack/ is not a package


def test_generated_files_are_fresh():
    stale = [path for path, text in generator.outputs(ROOT).items()
             if open(os.path.join(ROOT, path), encoding="utf-8").read() != text]
    assert stale == [], "run `make knobs`: stale %s" % ", ".join(stale)


def test_generator_check_mode_names_a_stale_file(tmp_path):
    copy = _copy_project(tmp_path)
    path = copy / "roles" / "bench" / "defaults" / "main.yml"
    path.write_text(path.read_text() + "# an edit by hand\n")
    run = subprocess.run([sys.executable, str(copy / "hack" / "knobs.py"), "--check", "--root", str(copy)],
                         capture_output=True, text=True, check=False)
    assert (run.returncode, run.stdout.strip()) == (1, "stale, run `make knobs`: roles/bench/defaults/main.yml")


def test_defaults_and_argument_specs_say_what_the_table_says():
    with open(os.path.join(ROOT, "roles", "bench", "defaults", "main.yml"), encoding="utf-8") as handle:
        defaults = yaml.safe_load(handle)
    with open(os.path.join(ROOT, "roles", "bench", "meta", "argument_specs.yml"), encoding="utf-8") as handle:
        specs = yaml.safe_load(handle)["argument_specs"]
    main = [knob for knob in sched_knobs.KNOBS if "main" in knob.entries]
    assert defaults == {"bench_" + knob.name: knob.default for knob in main}
    assert {name: option["type"] for name, option in specs["main"]["options"].items()} == {
        "bench_" + knob.name: knob.type for knob in main}
    assert set(specs["report"]["options"]) == {"bench_report_compare_to", "bench_report_run_dir",
                                               "bench_report_output_dir"}


def test_rules_and_workload_come_from_the_table():
    assert sched_rules.WORKLOAD == tuple(knob.name for knob in sched_knobs.KNOBS if knob.workload)
    assert sched_rules.RULES["jobs"] is sched_rules.COUNT
    assert sched_rules.RULES["throttle"] == (int, "use a whole number of hosts, 0 (no limit) or more")
    assert sched_rules.RUNTIMES == ("binary", "kind", "external")
    assert set(sched_knobs.FRONT_DOOR) <= set(sched_knobs.BY_NAME)


@pytest.mark.parametrize("knob", [knob for knob in sched_knobs.KNOBS if knob.feeds], ids=lambda knob: knob.name)
def test_a_fed_role_input_takes_the_knob(knob):
    """A knob's ``feeds`` name role inputs that really are set from it (playbooks/ or roles/)."""
    pattern = re.compile(r"\b(%s):[^\n]*\{\{[^\n]*\bbench_%s" % ("|".join(knob.feeds), knob.name))
    found = set()
    for base in ("playbooks", "roles"):
        for directory, _, files in os.walk(os.path.join(ROOT, base)):
            for name in files:
                if name.endswith((".yml", ".yaml")):
                    with open(os.path.join(directory, name), encoding="utf-8") as handle:
                        found.update(pattern.findall(handle.read()))
    assert found == set(knob.feeds)


def _copy_project(tmp_path):
    copy = tmp_path / "project"
    ignore = shutil.ignore_patterns(".git", ".venv", "results", "__pycache__", "tests", "molecule", ".cache")
    shutil.copytree(ROOT, copy, ignore=ignore, symlinks=True)
    return copy


PROBE = """
- name: Render env.json and the workload from the knobs' defaults only
  hosts: localhost
  connection: local
  gather_facts: true
  vars:
    bench_run: probe
    bench_scheduler: default
    bench_repeat: 1
    bench_versions: {name: probe, cgroupns: true}
    # What playbooks/python.yml reads from the host before facts.
    _bench_host_hardware: {cpus: 2, memory_mb: 2048, cpu_model: probe}
    bench_queue_quota_resolved: {}
    loadtest_fetch_audit_log: false
    loadtest_packed: {}
  tasks:
    - name: Load the bench role's defaults and vars
      ansible.builtin.include_role:
        name: bench
        tasks_from: probe.yml
"""
PROBE_TASKS = """
- name: Write env.json as a run writes it
  ansible.builtin.template:
    src: "{{ playbook_dir }}/playbooks/templates/env.json.j2"
    dest: "{{ playbook_dir }}/env.json"
    mode: "0644"
"""


@pytest.mark.slow
def test_a_default_changed_in_the_table_changes_the_run_docs_and_env_json(tmp_path):
    copy = _copy_project(tmp_path)
    table = copy / os.path.relpath(sched_knobs.__file__, ROOT)
    text = table.read_text()
    for old, new in (('_knob("jobs", "int", 1000,', '_knob("jobs", "int", 1234,'),
                     ('_knob("controller_manager_job_syncs", "int", 5,',
                      '_knob("controller_manager_job_syncs", "int", 7,')):
        assert text.count(old) == 1
        text = text.replace(old, new)
    table.write_text(text)
    # The copy's collection first on the path: its own knob table.
    subprocess.run([sys.executable, str(copy / "hack" / "knobs.py"), "--root", str(copy)], check=True,
                   capture_output=True, env=dict(os.environ, PYTHONPATH=str(copy / "collections")))

    defaults = yaml.safe_load((copy / "roles" / "bench" / "defaults" / "main.yml").read_text())
    assert (defaults["bench_jobs"], defaults["bench_controller_manager_job_syncs"]) == (1234, 7)
    assert "| `bench_jobs` | `1234` |" in (copy / "docs" / "knobs.md").read_text()
    assert "| `bench_jobs` | `1234` |" in (copy / "README.md").read_text()

    (copy / "probe.yml").write_text(PROBE)
    (copy / "roles" / "bench" / "tasks" / "probe.yml").write_text(PROBE_TASKS)
    env = dict(os.environ, ANSIBLE_CONFIG=str(copy / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    # An inventory of its own: inventories/local sets bench_jobs.
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "localhost,",
                          "-e", "ansible_python_interpreter=" + sys.executable, "probe.yml"],
                         cwd=copy, env=env, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    recorded = json.loads((copy / "env.json").read_text())
    assert recorded["workload"]["jobs"] == 1234
    assert recorded["knobs"]["controller_manager_job_syncs"] == 7
    assert set(recorded["knobs"]) == set(sched_knobs.names("recorded"))
