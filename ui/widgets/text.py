"""Text helpers every page uses: escaping for Markdown, numbers and sizes for people, corpus names.

Everything that comes from a user (a corpus' name, words, token text) is shown either as plain text
(dataframes, ``st.code``) or as Markdown escaped by :func:`escape_markdown`, never as HTML.

>>> format_count(1234567), format_bytes(2_500_000)
('1,234,567', '2.5 MB')
"""

from __future__ import annotations

import html
import re
from typing import Optional

from tokenizer_core.corpus import samples
from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.corpus.sizes import format_bytes  # noqa: F401  (the pages read it here with the other helpers)
from tokenizer_core.errors import CorpusError

# Characters that start markdown syntax anywhere (links, emphasis, code, LaTeX,
# Streamlit colour/emoji/icon tags, entities), and list/heading markers that
# only matter at the start of a line.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#|<>~$:&])")
_LINE_START = re.compile(r"^(\s*)(?:([-+=])|(\d+)([.)]))", re.MULTILINE)


def escape_markdown(text: str) -> str:
    """Escape text so Streamlit markdown shows it literally (no links, HTML, LaTeX or colour tags).

    >>> print(escape_markdown("**hi** <b>:red[x]</b> [a](b) $x$"))
    \\*\\*hi\\*\\* \\<b\\>\\:red\\[x\\]\\</b\\> \\[a\\]\\(b\\) \\$x\\$
    >>> print(escape_markdown("- item"), escape_markdown("1. point"))
    \\- item 1\\. point
    """
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    return _LINE_START.sub(_escape_line_start, escaped)


def _escape_line_start(match: re.Match) -> str:
    indent, marker, number, dot = match.groups()
    return indent + ("\\" + marker if marker else number + "\\" + dot)


def sample_name(corpus: Corpus) -> Optional[str]:
    """The name of the bundled sample ``corpus`` is, or None for the user's own text."""
    try:
        sample = samples.get(corpus.name)
    except CorpusError:
        return None
    # A pasted corpus the user named "default" is not the sample: compare sources too.
    return corpus.name if corpus.source == sample.source else None


def display_name(corpus: Corpus) -> str:
    """A bundled sample's title (e.g. for "default"), else the corpus' own name."""
    name = sample_name(corpus)
    return corpus.name if name is None else samples.get(name).title


def format_count(n: int) -> str:
    """Thousands separated by commas, as every number in the app: ``1,234,567``."""
    return f"{n:,}"


#: The look of :func:`text_block_html`: monospace on a faint panel that reads in both themes.
_BLOCK_STYLE = ("font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:0.85em;line-height:1.5;"
                "white-space:pre-wrap;overflow-wrap:anywhere;overflow-y:auto;padding:0.75em 1em;"
                "border-radius:0.5rem;background:rgba(128,128,128,0.10)")


def text_block_html(text: str, *, max_height: Optional[int] = None, css_class: str = "tp-text-block") -> str:
    """``text`` escaped, in a scrolling monospace panel (for ``render_html``): a long plain text as
    ``st.code`` shows it, without the syntax highlighter, which cost the browser ~0.4 s of script on
    every load of the Corpus page for a 3,000-character preview.

    >>> text_block_html("<b>x</b>\\n", max_height=100)  # doctest: +ELLIPSIS
    '<div class="tp-text-block" style="...;max-height:100px">&lt;b&gt;x&lt;/b&gt;\\n</div>'
    """
    height = f";max-height:{int(max_height)}px" if max_height else ""
    return f'<div class="{html.escape(css_class)}" style="{_BLOCK_STYLE}{height}">{html.escape(text)}</div>'
