# -*- coding: utf-8 -*-
"""The cluster under test: what each runtime starts and how (the certificates' plan, pki_plan), and what each
scheduler may use of the fake cluster (capacity)."""
