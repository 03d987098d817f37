# -*- coding: utf-8 -*-
"""The knobs: their one declaration (table), the rules that check their values (rules) and the resource quantities
both read and write (quantities)."""
