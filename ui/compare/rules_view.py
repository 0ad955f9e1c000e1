"""Under Compare's aligned rows: why the counts differ. Each tokenizer's split rules in words
(:mod:`tokenizer_core.analysis.rules`), a rule that not every row shares marked as a cause, and
each kind of place where the rows draw different boundaries linked to the rules that decide it
(:mod:`tokenizer_core.analysis.rule_places`).

>>> sorted(differing([["a", "b"], ["a", "c"]]))
['b', 'c']
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from tokenizer_core.analysis.compare import Segment
from tokenizer_core.analysis.rule_places import parting_places, rules_for
from tokenizer_core.analysis.rules import split_rules
from ui import cache
from ui.compare.choices import Compared
from ui.widgets.text import escape_markdown

RULES = "rules"  # the probe set, second part of a PROBES key


def rules_of(c: Compared) -> list[str]:
    return cache.PROBES.get_or_make((c.digest, RULES), lambda: split_rules(c.tokenizer))


def differing(all_rules: Sequence[Sequence[str]]) -> set[str]:
    """The rules some rows have and others do not: where their counts can part."""
    shared = set.intersection(*(set(r) for r in all_rules)) if all_rules else set()
    return {rule for rules in all_rules for rule in rules} - shared


def parting_lines(text: str, chosen: Sequence[Compared], rows: Sequence[Sequence[Segment]],
                  all_rules: Sequence[Sequence[str]]) -> list[str]:
    """One Markdown line per kind of place where the rows' boundaries differ: how many places, an
    example, and each tokenizer's rule for that kind of place (everything escaped)."""
    lines = []
    for part in parting_places(text, rows):
        count = len(part.positions)
        said = [f"*{escape_markdown(c.name)}*: " + (escape_markdown("; ".join(rules_for(part.place, rules)))
                                                    or "no rule of this kind (its merges decide)")
                for c, rules in zip(chosen, all_rules)]
        if part.place == "inside words":
            said = ["each vocabulary's own merges decide (no rule)"]
        lines.append(f"**{escape_markdown(part.place)}** — {count:,} place{'s' if count != 1 else ''}, e.g. "
                     f"“{escape_markdown(part.example)}”: " + " · ".join(said))
    return lines


def render_rules(chosen: Sequence[Compared], text: str = "", rows: Sequence[Sequence[Segment]] = ()) -> None:
    all_rules = [rules_of(c) for c in chosen]
    causes = differing(all_rules)
    with st.expander("Why the counts differ: each tokenizer's rules", icon=":material/rule:"):
        parting = parting_lines(text, chosen, rows, all_rules) if rows else []
        if parting:
            st.markdown("**Where the rows part**, and the rule that decides each kind of place:")
            st.markdown("\n".join(f"- {line}" for line in parting))
        st.caption("Found by probing each tokenizer (numbers, \"go home\", \"Hello\", a rare character, \"don't\", "
                   "what it adds around \"hi\"). Bold: a rule not every row shares, so a place where counts part.")
        for c, rules in zip(chosen, all_rules):
            shown = "; ".join(f"**{escape_markdown(r)}**" if r in causes else escape_markdown(r) for r in rules)
            st.markdown(f"*{escape_markdown(c.name)}*: {shown}")
