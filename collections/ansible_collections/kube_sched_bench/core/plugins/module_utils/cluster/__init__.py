# -*- coding: utf-8 -*-
"""The cluster under test: what each runtime starts and how (the certificates' plan today)."""
