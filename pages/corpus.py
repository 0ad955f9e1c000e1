"""Corpus page (landing page): choose the text every other page uses, and look at it."""

from ui.corpus.page import render_page
from ui.router import require_router

require_router()
render_page()
