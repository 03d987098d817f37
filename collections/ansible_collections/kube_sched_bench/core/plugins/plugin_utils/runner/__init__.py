# -*- coding: utf-8 -*-
"""bench.yml from Python, through ansible-runner (docs/ci-and-python.md, "From Python"):

- bench: ``run(inventory, extravars, on_event=None, ...)``, the entry point, and its BenchRun result;
- events: ansible-runner's events as the BenchEvents a caller follows (plays, tasks, progress lines, failures);
- outcome: each host's outcome and the run's results directory, gathered from those events.
"""
