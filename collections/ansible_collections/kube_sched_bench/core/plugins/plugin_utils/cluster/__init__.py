# -*- coding: utf-8 -*-
"""The runtime contract: the record every runtime's start returns (record)."""
