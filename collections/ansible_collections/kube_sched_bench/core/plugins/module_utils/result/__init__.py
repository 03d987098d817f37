# -*- coding: utf-8 -*-
"""A result directory's files (files) and the version of its summary.json (schema; summary, as readers import it).
The load test builds summary.json: the merge of module_utils/loadtest/measurements/."""
