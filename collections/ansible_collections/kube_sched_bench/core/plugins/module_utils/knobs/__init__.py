# -*- coding: utf-8 -*-
"""The knobs: their one declaration (table) and the rules that check their values (rules)."""
