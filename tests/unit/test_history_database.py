"""The history as a database (plugin_utils/history/database.py, database_history.py; history.sqlite): three runs
written by the history action answer the three example queries of docs/ci-and-python.md, read from the page itself
so that the page and the code cannot drift; the page's schema is the code's; index.html is rendered from the database
and is the page the files alone give; the same runs give the same bytes."""
import json
import os
import re
import sqlite3

import pytest
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history import database, load, render
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history import task as history_task
from report_fixtures import env, summary, write_failed, write_result

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "ci-and-python.md")


def doc_sql_blocks():
    """The ```sql blocks of the page's section on the database, in order: the schema, then the three queries."""
    with open(DOC, encoding="utf-8") as handle:
        text = handle.read()
    section = text.split("## The history as a database", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sql\n(.*?)```", section, re.S)


def write_scheduler(results, run_id, host, scheduler, started, p99, throughput, kubernetes="v1.32.2", qps=1000.0):
    document = summary(scheduler, throughput=throughput, latency={"p50": 10.0, "p90": 20.0, "p99": p99, "max": p99})
    document.update(started_at=started, scenario="burst", workload={"nodes": 20, "jobs": 50, "pods_per_job": 3})
    host_env = env(host, scheduler, scheduler_api_qps=qps)
    host_env["versions"]["pins"] = {"kubernetes": kubernetes, "volcano": "v1.11.0"}
    host_env["versions"]["scheduler"] = {"version": kubernetes if scheduler == "default" else "v1.11.0"}
    write_result(os.path.join(str(results), run_id, host, scheduler), document, env_doc=host_env)


@pytest.fixture(name="results")
def fixture_results(tmp_path):
    """Three runs: October (lab-03's Volcano slow, before November), November (lab-03's Volcano slow, lab-01's fast;
    the gate missed; a failed host), December on Kubernetes v1.33.0 (lab-03's Volcano fast)."""
    results = tmp_path / "results"
    write_scheduler(results, "r-oct", "lab-03", "volcano", "2026-10-20T01:00:00Z", 2500.0, 40.0)
    write_scheduler(results, "r-oct", "lab-03", "default", "2026-10-20T01:00:00Z", 900.0, 60.0)
    write_scheduler(results, "r-nov", "lab-03", "volcano", "2026-11-10T01:00:00Z", 3100.0, 30.0, qps=50.0)
    write_scheduler(results, "r-nov", "lab-01", "volcano", "2026-11-10T01:00:00Z", 2600.0, 50.0, qps=50.0)
    write_failed(str(results / "r-nov" / "lab-02"), "Build kube-apiserver", "go: module lookup disabled")
    (results / "r-nov" / "report.json").write_text(json.dumps({"gate": {"verdict": "missed"}}))
    write_scheduler(results, "r-dec", "lab-03", "volcano", "2026-12-01T01:00:00.250Z", 1200.0, 70.0,
                    kubernetes="v1.33.0")
    write_scheduler(results, "r-dec", "lab-03", "default", "2026-12-01T01:00:00.250Z", 800.0, 80.0,
                    kubernetes="v1.33.0")
    result = history_task.write_history({"results_dir": str(results)}, check_mode=False)
    assert result["history_sqlite"] == str(results / "history.sqlite") and result["runs"] == 3
    # What the controller's results weigh (make history says it; the toolkit never prunes them): every file, the
    # history's own among them.
    assert result["results_bytes"] == sum(path.stat().st_size for path in results.rglob("*") if path.is_file())
    return results


def answer(results, query):
    connection = sqlite3.connect(str(results / "history.sqlite"))
    try:
        return connection.execute(query).fetchall()
    finally:
        connection.close()


def test_the_pages_schema_is_the_databases():
    assert doc_sql_blocks()[0] == database.SCHEMA_TEMPLATE


def test_every_volcano_run_on_lab_03_since_november_with_p99_above_2_s(results):
    first = doc_sql_blocks()[1]
    assert answer(results, first) == [("r-nov", "2026-11-10T01:00:00Z", 3100.0)]


def test_each_schedulers_mean_throughput_per_kubernetes_version(results):
    second = doc_sql_blocks()[2]
    assert answer(results, second) == [("v1.32.2", "default", 1, 60.0), ("v1.32.2", "volcano", 3, 40.0),
                                       ("v1.33.0", "default", 1, 80.0), ("v1.33.0", "volcano", 1, 70.0)]


def test_the_results_of_runs_whose_gate_missed_with_their_api_qps(results):
    third = doc_sql_blocks()[3]
    assert answer(results, third) == [("r-nov", "lab-01", "volcano", 50.0, 1.5), ("r-nov", "lab-03", "volcano", 50.0, 1.5)]


def test_the_tables_hold_every_run_result_knob_and_version(results):
    assert answer(results, "SELECT run_id, started, gate FROM runs ORDER BY started") == [
        ("r-oct", "2026-10-20T01:00:00Z", None), ("r-nov", "2026-11-10T01:00:00Z", "missed"),
        ("r-dec", "2026-12-01T01:00:00.250000Z", None)]
    assert answer(results, "SELECT host, scheduler, host_failed, status FROM results WHERE run_id = 'r-nov' "
                           "ORDER BY host, scheduler") == [
        ("lab-01", "volcano", 0, "complete"), ("lab-02", "volcano", 1, "not run"), ("lab-03", "volcano", 0, "complete")]
    assert answer(results, "SELECT section, name, value FROM knobs WHERE run_id = 'r-dec' AND scheduler = 'default' "
                           "ORDER BY section, name") == [
        ("knobs", "scheduler_api_qps", 1000.0), ("knobs", "scheduler_gogc", ""), ("workload", "jobs", 50),
        ("workload", "nodes", 20), ("workload", "pods_per_job", 3)]
    assert answer(results, "SELECT source, component, version FROM versions WHERE run_id = 'r-dec' AND "
                           "scheduler = 'volcano' ORDER BY source, component") == [
        ("component", "kube-scheduler", "Kubernetes v1.32.2"), ("deployed", "volcano", "v1.11.0"),
        ("pin", "kubernetes", "v1.33.0"), ("pin", "volcano", "v1.11.0"), ("set", "set", "modern")]
    (configurations,) = answer(results, "SELECT COUNT(DISTINCT configuration) FROM results WHERE scheduler = 'volcano'")
    assert configurations == (3,)     # lab-01, lab-03 on v1.32.2, lab-03 on v1.33.0 (the QPS 50 is another too)


def test_index_html_is_rendered_from_the_database_as_the_files_would_give_it(results):
    history = load.load_history(str(results))
    expected = render.render_html(history, "Benchmark history of results")
    assert (results / "index.html").read_text(encoding="utf-8") == expected
    assert history_task.history_of_database(database.database_bytes(history), history.skipped).runs[0].run_id == "r-dec"


def test_the_same_runs_give_the_same_bytes_and_a_second_write_changes_nothing(results):
    assert database.database_bytes(load.load_history(str(results))) == (results / "history.sqlite").read_bytes()
    assert history_task.write_history({"results_dir": str(results)}, check_mode=False)["changed"] is False
