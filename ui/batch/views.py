"""The Batch page's views: the batch as grids, the masks a model sees as heatmaps, waste and
throughput, and exports. Token text goes to the browser as dataframe cells or escaped plotly text."""

from __future__ import annotations

import html
import io
import json
import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from tokenizer_core.analysis.batch_templates import TEMPLATES
from tokenizer_core.batch.batch_encoding import BatchEncoding
from tokenizer_core.batch.batching import batch_to_json
from tokenizer_core.batch.packing import (
    pack,
    packed_mask,
    packed_position_ids,
    position_ids,
    token_budget_batches,
    waste_by_batch_size,
)
from tokenizer_core.batch.stats import padding_waste
from tokenizer_core.pipeline import Tokenizer
from ui import url_state
from ui.batch import PREFIX
from ui.batch.controls import Settings
from ui.widgets import display, export
from ui.widgets.export_theme import LIGHT, ChartStyle, current
from ui.widgets.tokens import scheme_for, shown_text, visible_whitespace

FIELDS = ["tokens", "input_ids", "attention_mask", "token_type_ids", "special_tokens_mask", "position_ids",
          "generation position_ids"]
COURSE_LENGTHS = [10, 50, 500]
#: Positions a mask heatmap shows (a 1,000-token row would be a million cells).
MAX_MASK = 128
#: Positions of the packed example row, and of each document in it.
MAX_PACKED, MAX_DOC = 256, 64
#: Cells of the token grid greyed where the attention mask is 0 (styling every cell costs).
MAX_STYLED_CELLS = 20_000


#: The views' inputs in the address (named by their widget keys, as older links name them).
URL_PARAMS = (
    url_state.choice(PREFIX + "field", PREFIX + "field", FIELDS, default=FIELDS[0]),
    url_state.integer(PREFIX + "mask_row", PREFIX + "mask_row", default=0, lo=0, hi=100_000),
    # Empty: the batch's own lengths (what the tab starts from); typed lengths, or the course's, in a link.
    url_state.text(PREFIX + "lengths", PREFIX + "lengths", default="", what="the lengths"),
    # No defaults here: the widgets derive theirs from the lengths.
    url_state.integer(PREFIX + "pack_len", PREFIX + "pack_len", default=None, lo=1, hi=10**9),
    url_state.integer(PREFIX + "budget", PREFIX + "budget", default=None, lo=1, hi=10**9),
)


def _grid(batch: BatchEncoding, field: str, tok: Tokenizer) -> pd.DataFrame:
    if field == "tokens":
        scheme = scheme_for(tok)
        rows = [[shown_text(t, scheme=scheme, translate=display.translate()) for t in r] for r in batch.tokens]
    elif field == "position_ids":
        rows = [position_ids(m) for m in batch.attention_mask]
    elif field == "generation position_ids":
        rows = [position_ids(m, generation=True) for m in batch.attention_mask]
    else:
        rows = batch[field]
    frame = pd.DataFrame(rows)
    frame.index = [f"row {i}" + (f" (text {s})" if batch.overflow_to_sample_mapping[i] != i else "")
                   for i, s in enumerate(batch.overflow_to_sample_mapping)]
    return frame


def render_grid(batch: BatchEncoding, tok: Tokenizer) -> None:
    field = st.radio("Field", FIELDS, horizontal=True, key=PREFIX + "field")
    frame = _grid(batch, field, tok)
    if field == "tokens" and frame.size <= MAX_STYLED_CELLS:
        mask = pd.DataFrame(batch.attention_mask, index=frame.index)
        grey = "color:#7c8290" if current().dark else "color:#adb5bd"  # padding, dimmed in either theme
        styled = frame.style.apply(lambda col: [grey if m == 0 else "" for m in mask[col.name]], axis=0)
        export.table(styled, key=PREFIX + "grid", name=f"batch {field}", index=True)
    else:
        export.table(frame, key=PREFIX + "grid", name=f"batch {field}", index=True)
    waste = batch.waste()
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Rows", len(batch.rows))
    c2.metric("Padded length", batch.padded_length if batch.is_rectangular else "ragged")
    c3.metric("Padding", f"{waste.pad_fraction:.0%}")
    c4.metric("Wasted attention", f"{waste.wasted_attention_fraction:.0%}",
              help="Σ padded length² per row, minus the cells between real tokens.")
    if any(m != i for i, m in enumerate(batch.overflow_to_sample_mapping)):
        st.caption("Overflowing windows follow the row they were cut from (`overflow_to_sample_mapping`: "
                   f"{batch.overflow_to_sample_mapping}).")
    if field == "generation position_ids":
        st.caption("With left padding, generation numbers only the real tokens (padding gets 1), so a row's "
                   "first real token is position 0 whatever the padding in front of it.")


def heatmap(matrix: np.ndarray, labels: list[str], title: str, *, style: ChartStyle = LIGHT) -> go.Figure:
    """A mask as a heatmap: 1 (attends) in the theme's blue, 0 in a cell barely off the background."""
    fig = go.Figure(go.Heatmap(z=matrix, x=list(range(len(labels))), y=list(range(len(labels))),
                               colorscale=[[0, style.empty_cell], [1, style.full_cell]], showscale=False,
                               xgap=1, ygap=1,
                               customdata=[[f"{labels[q]} → {labels[k]}" for k in range(len(labels))]
                                           for q in range(len(labels))],
                               hovertemplate="query %{y} → key %{x}<br>%{customdata}<br>%{z}<extra></extra>"))
    fig.update_layout(title=title, height=style.size(360), margin=dict(l=10, r=10, t=style.size(40), b=10),
                      yaxis=dict(autorange="reversed", title="query", showgrid=False, zeroline=False),
                      xaxis=dict(title="key", showgrid=False, zeroline=False))
    return fig


def render_masks(batch: BatchEncoding) -> None:
    if not batch.is_rectangular:
        st.info("Turn padding on: the masks of a ragged batch have one size per row.")
        return
    if st.session_state.get(PREFIX + "mask_row", 0) >= len(batch.rows):
        st.session_state[PREFIX + "mask_row"] = 0  # a link's row past this batch's rows
    row = st.selectbox("Row", list(range(len(batch.rows))), key=PREFIX + "mask_row")
    n = min(batch.padded_length, MAX_MASK)
    labels = [html.escape(visible_whitespace(t))[:20] for t in batch.tokens[row][:n]]
    c1, c2, c3 = st.columns(3)
    style = current()
    for where, key, matrix, title in (
            (c1, "m1", batch.attention_mask_2d(row)[:n, :n], "padding mask"),
            (c2, "m2", np.tril(np.ones((n, n), dtype=int)), "causal mask"),
            (c3, "m3", batch.attention_mask_2d(row, causal=True)[:n, :n], "causal × padding")):
        export.plotly_chart(heatmap(matrix, labels, title, style=style), key=PREFIX + key,
                            name=f"{title}, row {row}", container=where, style=style)
    if batch.padded_length > MAX_MASK:
        st.caption(f"The first {MAX_MASK} of {batch.padded_length:,} positions are drawn.")
    st.markdown("**Packed**: the batch's rows (without padding) packed end to end into one sequence: each "
                "token attends only within its own document, and position ids restart per document.")
    docs: list[int] = []
    for length in batch.lengths:
        take = min(length, MAX_DOC)
        if take and sum(docs) + take <= MAX_PACKED:
            docs.append(take)
    doc_labels = [f"doc {d}:{p}" for d, n in enumerate(docs) for p in range(n)]
    export.plotly_chart(heatmap(packed_mask(docs), doc_labels, f"packed causal mask, {len(docs)} documents",
                                style=style), key=PREFIX + "m4", name="packed causal mask", style=style)
    st.caption(f"Documents of at most {MAX_DOC} tokens, {MAX_PACKED} in all, are drawn. Position ids of the "
               "packed row: " + ", ".join(map(str, packed_position_ids(docs)))[:600])


def _set_lengths(value: str) -> None:
    st.session_state[PREFIX + "lengths"] = value


def waste_sizes(n: int) -> list[int]:
    """The batch sizes the waste chart draws for ``n`` rows: powers of two up to 64, and ``n``.

    >>> waste_sizes(3), waste_sizes(100)
    ([1, 2, 3], [1, 2, 4, 8, 16, 32, 64, 100])
    """
    return sorted({1, 2, 4, 8, 16, 32, 64, n} & set(range(1, n + 1)))


def coincide(rows: list) -> bool:
    """Whether the given order and the length-sorted order pad exactly alike at every size drawn."""
    return all(abs(r.pad_fraction - r.sorted_pad_fraction) < 1e-12 for r in rows)


def waste_figure(sizes: list[int], rows: list, *, style: ChartStyle = LIGHT) -> go.Figure:
    """Padding share against batch size, in the given order and sorted; whole-number batch sizes on
    the x axis (only the sizes drawn), and a note on the chart when the two lines coincide."""
    same = coincide(rows)
    fig = go.Figure([
        go.Scatter(x=sizes, y=[r.pad_fraction for r in rows], name="in the given order", mode="lines+markers",
                   line=dict(color=style.blue, width=style.size(3)), marker=dict(size=style.size(9))),
        go.Scatter(x=sizes, y=[r.sorted_pad_fraction for r in rows], name="sorted by length (bucketing)",
                   mode="lines+markers", line=dict(color=style.accent, dash="dash", width=style.size(2)),
                   marker=dict(symbol="x", size=style.size(8)))])
    fig.update_layout(height=style.size(320), margin=dict(l=10, r=10, t=style.size(40), b=10),
                      title="Padding share against batch size",
                      xaxis=dict(title="batch size (rows)", type="log", tickvals=sizes, ticktext=[f"{s:,}" for s in sizes],
                                 tickformat="d", range=[-0.05, math.log10(max(sizes)) + 0.05] if len(sizes) > 1 else None),
                      yaxis=dict(title="padding", tickformat=".0%", rangemode="tozero"))
    if same:
        fig.add_annotation(xref="paper", yref="paper", x=0.01, y=0.98, xanchor="left", yanchor="top",
                           showarrow=False, text="the two lines coincide: sorting changes nothing here")
    return fig


def render_waste(batch: BatchEncoding) -> None:
    own = ", ".join(str(n) for n in batch.lengths)
    course = ", ".join(map(str, COURSE_LENGTHS))
    c1, c2, c3 = st.columns([4, 2, 2], vertical_alignment="bottom")
    text = c1.text_input("Lengths (tokens, comma-separated)", key=PREFIX + "lengths", placeholder=f"this batch: {own}",
                         help="Empty: the lengths of the batch above (padding and special tokens included). "
                              "Type others to try them.")
    c2.button("Use this batch's lengths", key=PREFIX + "use_lengths", on_click=_set_lengths, args=("",),
              width="stretch")
    c3.button(f"Course example ({course})", key=PREFIX + "course_lengths", on_click=_set_lengths, args=(course,),
              width="stretch", help="The course's example: 10, 50 and 500 tokens in one batch.")
    try:
        lengths = [int(x) for x in (text or own).replace(" ", "").split(",") if x]
        if not lengths or min(lengths) < 0 or max(lengths) > 1_000_000 or len(lengths) > 10_000:
            raise ValueError
    except ValueError:
        st.error("Give whole numbers of tokens, 0 to 1,000,000, separated by commas.")
        return
    plain = padding_waste(lengths)
    whose = "This batch" if not text.strip() else "One batch"
    st.markdown(f"{whose} of {len(lengths)}: padded to {max(lengths):,}, **{plain.pad_fraction:.0%}** of the "
                f"positions are padding, and {plain.wasted_attention_fraction:.0%} of the attention cells "
                f"(Σ n² = {plain.attention_cells:,} computed for {plain.useful_attention_cells:,} useful).")
    if not text.strip() and batch.is_rectangular and batch.padded_length != max(lengths, default=0):
        st.caption(f"The batch above is padded to {batch.padded_length:,} by its padding settings; here rows "
                   f"pad to the longest ({max(lengths):,}), so the shares differ.")
    sizes = waste_sizes(len(lengths))
    rows = waste_by_batch_size(lengths, sizes)
    style = current()
    export.plotly_chart(waste_figure(sizes, rows, style=style), key=PREFIX + "waste_chart", name="padding share",
                        style=style)
    if coincide(rows):
        st.caption("The two lines lie on top of each other: " + (
            "with one row there is nothing to sort." if len(lengths) < 2 else
            "at every batch size drawn, sorting by length forms batches that pad exactly as much as the "
            "given order (the rows are already in length order, or every batch holds all of them)."))
    c3, c4 = st.columns(2)
    # Their first values follow the lengths; set here, not as the widgets' own defaults, since the
    # page keeps its values in session state (a widget given both warns).
    for key, least in ((PREFIX + "pack_len", 512), (PREFIX + "budget", 1024)):
        if st.session_state.get(key) is None:
            st.session_state[key] = max(least, max(lengths))
    row_len = int(c3.number_input("Packed row length", min_value=1, key=PREFIX + "pack_len"))
    budget = int(c4.number_input("Token budget per batch", min_value=1, key=PREFIX + "budget"))
    packed = pack([min(n, row_len) for n in lengths], max_length=row_len)
    budgeted = token_budget_batches(lengths, budget=budget)
    st.markdown(f"**Packing** into rows of {row_len:,}: {len(packed)} row(s), "
                f"{1 - sum(lengths) / (len(packed) * row_len):.0%} padding left. "
                f"**Dynamic batching** under {budget:,} padded tokens per batch: {len(budgeted)} batch(es) "
                f"of sizes {[len(b) for b in budgeted][:20]}.")


def render_export(batch: BatchEncoding, settings: Settings, tok: Tokenizer, *, pairs: bool) -> None:
    c1, c2 = st.columns(2)
    c1.download_button("Download JSON", data=json.dumps(batch_to_json(batch), ensure_ascii=False),
                       file_name="batch.json", mime="application/json", key=PREFIX + "dl_json",
                       icon=":material/download:")
    if batch.is_rectangular:
        c2.download_button("Download NumPy (.npz)", data=npz_bytes(batch), file_name="batch.npz",
                           mime="application/octet-stream", key=PREFIX + "dl_npz", icon=":material/download:")
    else:
        c2.caption("NumPy needs a rectangular batch: turn padding on.")
    st.markdown("The same batch with Hugging Face `tokenizers`:")
    specials = {}
    processor = tok.post_processor
    for token in getattr(processor, "special_tokens", {}).values():
        specials[token.id] = token.ids[0]
    st.code(equivalent_call(settings, pairs=pairs, specials=specials), language="python")


def npz_bytes(batch: BatchEncoding) -> bytes:
    """The batch's numeric arrays as an ``.npz`` file (``numpy.load`` reads it back)."""
    buffer = io.BytesIO()
    np.savez(buffer, **{k: v for k, v in batch.to_numpy().items() if v.dtype != object})
    return buffer.getvalue()


def equivalent_call(settings: Settings, *, pairs: bool, specials: dict[str, int] | None = None) -> str:
    """The ``tokenizers`` calls that build the same batch (``specials``: the template's tokens and ids)."""
    lines = ['from tokenizers import Tokenizer', 'tok = Tokenizer.from_file("tokenizer.json")']
    if settings.template == "none":
        lines.append("# no post-processor: encode with add_special_tokens=False")
    elif settings.template != "own":
        single, pair = (settings.single, settings.pair) if settings.template == "custom" else TEMPLATES[settings.template]
        lines.append("from tokenizers.processors import TemplateProcessing")
        lines.append(f"tok.post_processor = TemplateProcessing(single={single!r}, pair={pair!r}, "
                     f"special_tokens={sorted((specials or {}).items())!r})")
    if settings.truncation is not None:
        t = settings.truncation
        lines.append(f"tok.enable_truncation(max_length={t.max_length}, stride={t.stride}, "
                     f"strategy={t.strategy!r}, direction={t.side!r})")
    if settings.padding is not None:
        p = settings.padding
        length = p.max_length if p.strategy == "max_length" else None
        lines.append(f"tok.enable_padding(direction={p.side!r}, pad_id={p.pad_id}, pad_token={p.pad_token!r}, "
                     f"length={length}, pad_to_multiple_of={p.pad_to_multiple_of})")
    special = ", add_special_tokens=False" if settings.template == "none" else ""
    lines.append(f"batch = tok.encode_batch(list(zip(texts, pairs)){special})" if pairs
                 else f"batch = tok.encode_batch(texts{special})")
    lines.append("ids = [e.ids for e in batch]; mask = [e.attention_mask for e in batch]")
    return "\n".join(lines)
