"""The Entropy patches page (ui/patches/page.py) and its chart (ui/patches/chart.py)."""

PREFIX = "patches_"
