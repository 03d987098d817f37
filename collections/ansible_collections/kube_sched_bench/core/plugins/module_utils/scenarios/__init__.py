# -*- coding: utf-8 -*-
"""Scenarios: the file and its expansion (spec), their other objects, per-job records, metrics and findings."""
