# -*- coding: utf-8 -*-
"""A result directory's files (files) and its summary.json (summary)."""
