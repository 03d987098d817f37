"""The rules behind issue 68's lines, one by one: which summary.json this toolkit reads (module_utils/result/schema.py),
the inventory's one line (plugin_utils/preflight/inventory.py), run()'s limit, and history.sqlite's version."""
import os
import sqlite3

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import schema
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history import database_history
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.database import database_bytes
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.load import History
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.preflight import inventory
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner.arguments import limit_of


@pytest.mark.parametrize("document, expected", [
    ({}, None),                                   # version 1 had no key: read
    ({"schema_version": 2}, None),
    ({"schema_version": schema.SCHEMA_VERSION}, None),
    ({"schema_version": schema.SCHEMA_VERSION + 1},
     ("newer", "written by a newer toolkit (schema %d, this one reads up to %d)"
      % (schema.SCHEMA_VERSION + 1, schema.SCHEMA_VERSION))),
    ({"schema_version": 0}, ("unreadable", "summary.json's schema_version 0 is not a version (1 to %d)"
                             % schema.SCHEMA_VERSION)),
    ({"schema_version": True}, ("unreadable", "summary.json's schema_version True is not a version (1 to %d)"
                                % schema.SCHEMA_VERSION)),
    ({"schema_version": "3"}, ("unreadable", "summary.json's schema_version '3' is not a version (1 to %d)"
                               % schema.SCHEMA_VERSION)),
])
def test_which_summaries_this_toolkit_reads(document, expected):
    assert schema.version_problem(document) == expected


def test_an_inventory_with_hosts_has_no_problem_whatever_its_sources_say():
    assert inventory.inventory_problem(["/nowhere"], ["lab-01"], failure=lambda _: "does not exist") == ""


def test_the_inventory_line_names_the_source_as_typed_and_what_is_wrong(tmp_path):
    (tmp_path / "inventories" / "lab").mkdir(parents=True)
    (tmp_path / "inventories" / "local").mkdir()
    missing = str(tmp_path / "inventories" / "lba")
    assert inventory.inventory_problem([missing], [], cwd=str(tmp_path)) == (
        "Inventory inventories/lba does not exist (inventories/ holds lab, local): give -i an inventory file or "
        "directory")
    assert inventory.inventory_problem(["/x/lab.yml"], [], failure=lambda _: "bad indentation", cwd="/") == (
        "Inventory x/lab.yml does not parse: bad indentation")
    assert inventory.inventory_problem(["/x/lab.yml"], [], failure=lambda _: None, cwd="/y").startswith(
        "Inventory /x/lab.yml has no host: ")


def test_a_directory_parses_when_one_of_its_files_does(tmp_path):
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "all.yml").write_text("[not an inventory")
    (tmp_path / "README.md").write_text("# ignored as Ansible ignores it")
    assert inventory.source_failure(str(tmp_path)) == "is a directory without an inventory file"
    (tmp_path / "hosts.yml").write_text("all:\n  hosts:\n    lab-01: {}\n")
    assert inventory.source_failure(str(tmp_path)) is None
    (tmp_path / "hosts.yml").write_text("all:\n  hosts: [\n")
    assert inventory.source_failure(str(tmp_path)).startswith("hosts.yml YAML parsing failed")


@pytest.mark.parametrize("cmdline, limit", [
    (None, ""), ("", ""), ("--limit lab-01", "lab-01"), ("-l 'lab-01,lab-02'", "lab-01,lab-02"),
    ("--limit=centos7", "centos7"), ("-llab-03 -v", "lab-03"), ("--list-tasks", ""),
])
def test_the_limit_run_reads_from_its_cmdline(cmdline, limit):
    assert limit_of(cmdline) == limit


def test_history_sqlite_records_its_schema_and_a_newer_one_is_refused_whole(tmp_path):
    path = tmp_path / "history.sqlite"
    path.write_bytes(database_bytes(History([], [], [], [])))
    assert database_history.newer_database(str(path)) is None
    assert database_history.read_history(str(path)).runs == []
    connection = sqlite3.connect(str(path))
    connection.execute("PRAGMA user_version = %d" % (schema.DATABASE_SCHEMA_VERSION + 1))
    connection.commit()
    connection.close()
    line = "written by a newer toolkit (database schema %d, this one reads up to %d)" % (
        schema.DATABASE_SCHEMA_VERSION + 1, schema.DATABASE_SCHEMA_VERSION)
    assert database_history.newer_database(str(path)) == line
    with pytest.raises(database_history.NewerDatabase, match=r"history\.sqlite was written by a newer toolkit"):
        database_history.read_history(str(path))
    assert database_history.newer_database(os.path.join(str(tmp_path), "none.sqlite")) is None
