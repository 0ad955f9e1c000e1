"""Streamlit-only helpers for the Tokenizer Playground pages.

Modules here may import streamlit; :mod:`tokenizer_core` never does. Pages read
widgets and call these helpers; shared state (the active corpus) lives in
:mod:`ui.session`.
"""
