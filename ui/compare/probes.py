"""The Compare page's views over fixed texts: the robustness probes and the fertility per language of
the bundled multilingual sample. The texts never change, so each tokenizer's results are computed once
per server and kept in ``cache.PROBES`` under its content digest (never its name): a rerun, or another
session comparing the same tokenizer, encodes nothing.

>>> [p.name for p in URL_PARAMS]
['compare_language_metric']
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from tokenizer_core.analysis.compare import robustness_examples, unk_id
from tokenizer_core.analysis.languages import LanguageFertility, fertility_by_language
from tokenizer_core.pipeline import Tokenizer
from ui import cache, url_state
from ui import session as state
from ui.compare import PREFIX
from ui.compare.choices import Compared
from ui.widgets.export import plotly_chart
from ui.widgets.safe_html import render_html
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import chips_html, scheme_for

METRIC = PREFIX + "language_metric"
METRICS = ("tokens per word", "tokens per character")
URL_PARAMS = (url_state.choice(METRIC, METRIC, METRICS, default=METRICS[0]),)
ROBUSTNESS, LANGUAGES = "robustness", "languages"  # the probe sets, second part of a PROBES key


@dataclass(frozen=True)
class Probe:
    """One probe text as a tokenizer encodes it (without special tokens)."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    unknown: int  # how many of the ids are the unknown token

    def spent(self) -> str:
        """What the table shows: the token count, and how many are unknown.

        >>> Probe((1, 0), ("a", "<unk>"), 1).spent()
        '2 (1 unknown)'
        """
        return f"{len(self.ids)}" + (f" ({self.unknown} unknown)" if self.unknown else "")


def _encode_probes(tok: Tokenizer) -> tuple[Probe, ...]:
    unknown = unk_id(tok)
    out = []
    for _, text in robustness_examples():
        enc = tok.encode(text, add_special_tokens=False)
        lost = sum(1 for i in enc.ids if i == unknown) if unknown is not None else 0
        out.append(Probe(tuple(enc.ids), tuple(enc.tokens), lost))
    return tuple(out)


def probes(c: Compared) -> tuple[Probe, ...]:
    """``c``'s encodings of the robustness probes, in :func:`robustness_examples` order (once per digest)."""
    return cache.PROBES.get_or_make((c.digest, ROBUSTNESS), lambda: _encode_probes(c.tokenizer),
                                    spinner=f"Encoding the probes with {c.name}…")


def render_robustness(chosen: Sequence[Compared], *, translate: bool) -> None:
    examples = robustness_examples()
    encoded = [probes(c) for c in chosen]
    counts = pd.DataFrame({"probe": [label for label, _ in examples],
                           **{c.name: [p.spent() for p in found] for c, found in zip(chosen, encoded)}})
    st.markdown("Tokens each tokenizer spends on text it may never have seen (and how many of them are the "
                "unknown token, which loses the text):")
    st.dataframe(counts, hide_index=True, width="stretch")
    for i, (label, text) in enumerate(examples):
        with st.expander(f"{label}: {text[:60]}"):
            for c, found in zip(chosen, encoded):
                probe = found[i]
                st.markdown(f"**{escape_markdown(c.name)}** · {len(probe.ids)} tokens")
                render_html(chips_html(zip(probe.ids, probe.tokens), scheme=scheme_for(c.tokenizer),
                                       translate=translate))


def languages(c: Compared) -> tuple[LanguageFertility, ...]:
    """``c``'s fertility per script on the bundled multilingual sample (once per digest)."""
    def make() -> tuple[LanguageFertility, ...]:
        return tuple(fertility_by_language(c.tokenizer, state.load_sample_cached("multilingual").lines()))

    return cache.PROBES.get_or_make((c.digest, LANGUAGES), make, spinner=f"Measuring {c.name} on the multilingual sample…")


def _figure(per_tokenizer: Sequence[tuple[str, Sequence[LanguageFertility]]], metric: str) -> go.Figure:
    field = "fertility" if metric == METRICS[0] else "tokens_per_char"
    fig = go.Figure()
    for name, rows in per_tokenizer:
        fig.add_trace(go.Bar(name=html.escape(name), x=[r.script for r in rows], y=[getattr(r, field) for r in rows],
                             customdata=[", ".join(r.languages) for r in rows],
                             hovertemplate="%{x} (%{customdata})<br>%{y:.2f} " + metric + "<extra>"
                                           + html.escape(name) + "</extra>"))
    fig.update_layout(barmode="group", height=420, margin=dict(l=10, r=10, t=40, b=10), yaxis_title=metric,
                      title=f"{metric.capitalize()} by script, on the bundled multilingual sample",
                      legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1, xanchor="right"))
    return fig


def render_languages(chosen: Sequence[Compared]) -> None:
    metric = st.radio("Measure", METRICS, horizontal=True, key=METRIC)
    per_tokenizer = [(c.name, languages(c)) for c in chosen]
    plotly_chart(_figure(per_tokenizer, metric), key=PREFIX + "languages_chart", name=f"{metric} by script")
    st.caption("Scripts written without spaces (Chinese, Japanese, Thai) have few words per line by this count, "
               "so tokens per character is the fairer measure there.")
    table = [{"tokenizer": name, "script": r.script, "languages": ", ".join(r.languages), "lines": r.lines,
              "tokens": r.tokens, "tokens/word": r.fertility, "tokens/char": r.tokens_per_char}
             for name, rows in per_tokenizer for r in rows]
    with st.expander("The numbers"):
        st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch")
