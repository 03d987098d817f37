# -*- coding: utf-8 -*-
"""A result directory's files (files) and the version of its summary.json (schema; summary, as readers import it).
The load test builds summary.json: module_utils/loadtest/summary.py."""
