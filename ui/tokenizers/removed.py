"""PickyBPE's removed tokens on the vocabulary tab: every token training took out of the vocabulary,
why (its Intersection over Self against the threshold, the merge that used it up), what its last
occurrences split back into, and whether a later merge made it again.

The why needs the training's trace, which a tokenizer trained in this server holds; one read back from
a file or a workspace holds only its events, so the table then gives the merge and the split alone.

>>> from tokenizer_core.options import PickyBpeOptions, TrainOptions
>>> from tokenizer_core.training import train
>>> tok = train("pickybpe", ["abc abc abc abc ab\\n"], options=TrainOptions(
...     vocab_size=260, special_tokens=(), pickybpe=PickyBpeOptions(threshold=0.7)))
>>> rows = removal_rows(tok.model)
>>> [(r["token"], r["IoS"], r["triggered by merge"], r["split into"], r["made again"]) for r in rows][:2]
[('ab', 0.8, 'Ġ + ab', 'a + b', True), ('Ġab', 0.75, 'Ġab + c', 'Ġ + a + b', True)]
"""

from __future__ import annotations

from typing import Any, Optional

import pandas as pd
import streamlit as st

from tokenizer_core.pickybpe.events import RemovalEvent
from tokenizer_core.pickybpe.model import PickyBPE
from ui.tokenizers import PREFIX
from ui.widgets.export import table
from ui.widgets.tokens import Scheme, display_text


def removal_rows(model: PickyBPE, *, scheme: Scheme = "plain", translate: bool = False) -> list[dict[str, Any]]:
    """One row per removal, in training order (text shown as the page shows tokens)."""
    def shown(token: str) -> str:
        return display_text(token, scheme=scheme, translate=translate)

    trace = model.training_trace
    detailed: list[Optional[RemovalEvent]] = []
    if trace is not None:
        detailed = list(trace.removals())
    events = model.events
    # Which removals a later merge undid: walk back, collecting the tokens merges make.
    made_later: set[int] = set()
    made: set[str] = set()
    for i in range(len(events) - 1, -1, -1):
        event = events[i]
        if event[0] == "merge":
            made.add(event[1] + event[2])
        elif event[1] in made:
            made_later.add(i)
    rows: list[dict[str, Any]] = []
    last_merge: tuple[str, str] = ("", "")
    k = 0
    for i, event in enumerate(events):
        if event[0] == "merge":
            last_merge = (event[1], event[2])
            continue
        d = detailed[k] if k < len(detailed) else None
        k += 1
        rows.append({
            "token": shown(event[1]),
            "IoS": None if d is None else round(d.ios, 4),
            "pairs merged": None if d is None else d.merged,
            "left over": None if d is None else d.remaining,
            "triggered by merge": " + ".join(map(shown, last_merge)),
            "split into": " + ".join(map(shown, event[2])),
            "made again": i in made_later,
        })
    return rows


def render_removed(model: PickyBPE, *, scheme: Scheme, translate: bool) -> None:
    """The table of removals under the vocabulary, with how many there were and how many stayed out."""
    rows = removal_rows(model, scheme=scheme, translate=translate)
    gone = len(model.removed_tokens())
    st.markdown("**Tokens PickyBPE removed during training**")
    if not rows:
        st.caption("None: no merge used up one of its tokens (IoS above the threshold), so this is plain BPE.")
        return
    why = ("IoS is the share of the token's occurrences the merge used (pairs merged / (pairs merged + left "
           "over)); above the threshold it goes, and what is left over splits back into its pair.")
    if model.training_trace is None:
        why += " This tokenizer was read back from a file, which keeps the events but not their counts."
    st.caption(f"{len(rows):,} removals, {gone:,} of the tokens still out of the vocabulary at the end (a later "
               f"merge made the others again). {why}")
    table(pd.DataFrame(rows), key=PREFIX + "removed_table", name="removed tokens", hide_index=True,
          height=min(38 + 35 * len(rows), 360),
          column_config={"IoS": st.column_config.NumberColumn(format="%.3f")})
