# -*- coding: utf-8 -*-
"""The load generator's jobs created by several processes (workload.submit_processes above 1).

One Python process spends most of a core on the client's work per request, so on its own it is the limit of a
run that creates every pod (bench_pod_creation=direct) long before the API server is. Each child process gets
every Nth job of the workload (in arrival order), its own API client, an Nth of the thread pool and of the
client-side rate limit, and creates its jobs at their arrival offsets from one start time that all share
(CLOCK_MONOTONIC is the host's, not the process's). It sends its progress and, at the end, the outcome of every job
it handed to the API server.

The children are forked before the load test starts any thread (a fork beside live client threads can leave a
lock held in the child forever), wait for the start, and stop with the load test: on SIGTERM they finish the
requests in flight and report them, so what was created is known; if the load test dies without a word, the
kernel sends them SIGTERM (PR_SET_PDEATHSIG).
"""
from __future__ import annotations

import ctypes
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Pipe
from multiprocessing.connection import wait as wait_ready

# Each child's requests carry its number (from 1) in their User-Agent, so the audit log tells who created what.
USER_AGENT = "sched-bench-loadgen/%d"
PROGRESS_EVERY_S = 0.5
STOP_WAIT_S = 30.0
_PR_SET_PDEATHSIG = 1


class Stopped(Exception):
    """SIGTERM in a child while it creates jobs."""


def share(value, parts, index):
    """The ``index``-th of ``parts`` near-equal whole shares of ``value`` (at least 1): 16 over 3 is 6, 5, 5."""
    return max(1, value // parts + (1 if index < value % parts else 0))


def deal(jobs, parts):
    """Every ``parts``-th job to each part, in order: each keeps the workload's arrival order and spread."""
    return [jobs[index::parts] for index in range(parts)]


def outcomes_in_order(jobs, reports):
    """(job, error) for each job a child reported, in the workload's order; ``reports`` maps job name to error."""
    return [(job, reports[job["name"]]) for job in jobs if job["name"] in reports]


def _die_with_parent():
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the load test's own stop still signals its children
        pass


class Submitters:
    """``processes`` children, forked now, each to create its deal of ``jobs`` with the function that
    ``make_create(index)`` returns in the child (``create(job)`` -> (job, error or None)) on a pool of
    ``concurrency(index)`` threads, through ``open_loop``."""

    def __init__(self, jobs, processes, make_create, concurrency, open_loop):
        if threading.active_count() != 1:
            raise RuntimeError("the load generator's processes must be forked before any thread starts")
        self.jobs = jobs
        self.children = []   # (pid, connection)
        self.progress = {}   # pid -> (done, failed)
        self.reports = {}    # job name -> error or None
        self.failures = []   # a child that ended without its report, in a sentence
        self.open = set()
        for index, part in enumerate(deal(jobs, processes)):
            pid, connection = _fork(lambda end, index=index, part=part: _child(
                end, part, lambda: make_create(index), concurrency(index), open_loop))
            self.children.append((pid, connection))
            self.open.add(pid)

    def start(self, at):
        """Let every child start its jobs' clock at ``at`` (time.monotonic())."""
        for _, connection in self.children:
            connection.send(("go", at))

    def wait(self, note, timeout=None):
        """Collect the children's progress and reports until all have ended (or ``timeout`` s): ``note(done,
        failed)`` with the totals as they come."""
        deadline = None if timeout is None else time.monotonic() + timeout
        by_connection = {connection: pid for pid, connection in self.children}
        while self.open:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return
            for connection in wait_ready([c for c, pid in by_connection.items() if pid in self.open],
                                         min(1.0, left) if left is not None else 1.0):
                self._receive(by_connection[connection], connection)
            note(sum(done for done, _ in self.progress.values()), sum(failed for _, failed in self.progress.values()))

    def _receive(self, pid, connection):
        try:
            kind, *body = connection.recv()
        except (EOFError, OSError):
            self.failures.append("load generator process %d ended without its report" % pid)
            self.open.discard(pid)
            return
        if kind == "progress":
            self.progress[pid] = tuple(body)
        elif kind == "done":
            reports, problem = body
            self.reports.update(reports)
            self.progress[pid] = (len(reports), sum(1 for error in reports.values() if error))
            if problem:
                self.failures.append("load generator process %d: %s" % (pid, problem))
            self.open.discard(pid)

    def outcomes(self):
        return outcomes_in_order(self.jobs, self.reports)

    def stop(self):
        """Stop the children that still create jobs, waiting for their reports of the requests in flight."""
        for pid in list(self.open):
            _signal(pid, signal.SIGTERM)
        self.wait(lambda done, failed: None, STOP_WAIT_S)
        for pid in sorted(self.open):
            self.failures.append("load generator process %d did not stop within %g s: the jobs it was creating are "
                                 "not counted" % (pid, STOP_WAIT_S))

    def close(self):
        """End and reap every child (those that never started, those that do not stop)."""
        for pid, connection in self.children:
            if pid in self.open:
                _signal(pid, signal.SIGKILL)
            connection.close()
        for pid, _ in self.children:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self.children, self.open = [], set()


def _fork(child_main):
    """(pid, the parent's end of a pipe to it) of a child that runs ``child_main(its end)`` and never returns."""
    parent_end, child_end = Pipe()
    # The parent's SIGTERM handler must not run in a child before the child has its own.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            parent_end.close()
            try:
                child_main(child_end)
            finally:
                os._exit(1)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    child_end.close()
    return pid, parent_end


def _signal(pid, signum):
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _child(connection, jobs, make_create, concurrency, open_loop):  # pragma: no cover - run by the end-to-end tests
    """A child's life: wait for the start, create its jobs, report, exit without running the parent's exit code."""
    state = {"started": False, "creating": False, "stop": False}

    def on_term(_signum, _frame):
        if not state["started"]:
            os._exit(0)
        state["stop"] = True
        if state["creating"]:
            state["creating"] = False
            raise Stopped()

    code, outcomes, problem = 0, [], None
    try:
        signal.signal(signal.SIGTERM, on_term)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the load test, which stops its children
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        _die_with_parent()
        message = connection.recv()
        if message[0] != "go":
            os._exit(0)
        state["started"] = True
        last = [0.0]

        def note(done, failed):
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY_S:
                last[0] = now
                # A SIGTERM waits until the message is whole.
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
                try:
                    connection.send(("progress", done, failed))
                finally:
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})

        try:
            create = make_create()
            with ThreadPoolExecutor(max_workers=concurrency) as pool:
                state["creating"] = not state["stop"]
                if state["creating"]:
                    open_loop(pool, jobs, create, note, outcomes, start=message[1])
                state["creating"] = False
        except Stopped:
            pass
        except Exception as exc:  # noqa: BLE001 - reported to the load test in a sentence
            state["creating"] = False
            problem = "%s: %s" % (type(exc).__name__, exc)
        connection.send(("done", {job["name"]: error for job, error in outcomes}, problem))
    except BaseException:  # noqa: BLE001 - the parent went away; nothing to report to
        code = 1
    finally:
        os._exit(code)


class ProbeWorkers:
    """``processes`` children for the calibration's probes, forked once before any thread runs and kept for every
    round: OpenSSL 3 has no fork handlers, and a thread pool that has just ended may still hold one of its locks in
    the C code that runs after Python's join, which a process forked then inherits held forever. Each child calls
    ``setup(index)`` once (a client of its own, say), which returns ``handle(command, argument)``: run one timed
    step and return how many calls it made."""

    def __init__(self, processes, setup):
        if threading.active_count() != 1:
            raise RuntimeError("the load generator's processes must be forked before any thread starts")
        self.children = []
        for index in range(processes):
            self.children.append(_fork(lambda end, index=index: _probe_child(end, lambda: setup(index))))

    def timed(self, command, arguments, lead_s=0.5):
        """(calls, seconds): every child runs ``command`` with its entry of ``arguments`` from one common start
        ``lead_s`` from now; the seconds run to the last child's end. A child that fails raises RuntimeError."""
        at = time.monotonic() + lead_s
        for (_, connection), argument in zip(self.children, arguments):
            connection.send(("run", at, command, argument))
        calls, end, problems = 0, at, []
        for pid, connection in self.children:  # every answer read, so that the next step reads its own
            try:
                kind, value, ended = connection.recv()
            except (EOFError, OSError):
                problems.append("load generator process %d ended without its report" % pid)
                continue
            if kind != "done":
                problems.append("load generator process %d: %s" % (pid, value))
            else:
                calls, end = calls + value, max(end, ended)
        if problems:
            raise RuntimeError(problems[0])
        return calls, end - at

    def close(self):
        for pid, connection in self.children:
            _signal(pid, signal.SIGKILL)
            connection.close()
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self.children = []


def _probe_child(connection, setup):  # pragma: no cover - the child of ProbeWorkers
    code = 0
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        _die_with_parent()
        handle = None
        while True:
            _, at, command, argument = connection.recv()
            try:
                handle = handle or setup()
                time.sleep(max(0.0, at - time.monotonic()))
                connection.send(("done", handle(command, argument), time.monotonic()))
            except Exception as exc:  # noqa: BLE001 - reported to the parent in a sentence
                connection.send(("failed", "%s: %s" % (type(exc).__name__, exc), time.monotonic()))
    except BaseException:  # noqa: BLE001 - the parent went away or closed the pipe
        code = 1
    finally:
        os._exit(code)
