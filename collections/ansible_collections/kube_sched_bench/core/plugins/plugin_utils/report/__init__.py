# -*- coding: utf-8 -*-
"""The report of a run, one concern a module:

- model: the data model (Run, HostResult, SchedulerResult, Sample), the figures (METRICS) and their Stat;
- run: reading a run directory into it (load_run, find_run), the files' names;
- build: the report put together, its sections in order (build_report, Report, the overview and summary);
- aggregate: the fleet's figures across hosts and a figure's change against an earlier run;
- tables: the fleet's and each host's tables of results, and the lines beside them;
- charts: the chart data (pods bound and backlog over time, latency, throughput);
- verdicts: the gate's section and the comparison with an earlier run;
- environment: where the time went, the hosts' calibration and environments;
- scenarios: a scenario's sections; csv_table: report.csv's columns and rows;
- blocks: the vocabulary (headings, paragraphs, tables, images, chart data); render: Markdown, HTML, CSV and PNG;
- gate: bench_gate parsed and checked; task: the action's work; phases: the run's phases; matrix: the upstream
  matrix.
"""
