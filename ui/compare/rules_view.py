"""Under Compare's aligned rows: why the counts differ. Each tokenizer's split rules in words
(:mod:`tokenizer_core.analysis.rules`), a rule that not every row shares marked as a cause.

>>> sorted(differing([["a", "b"], ["a", "c"]]))
['b', 'c']
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

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


def render_rules(chosen: Sequence[Compared]) -> None:
    all_rules = [rules_of(c) for c in chosen]
    causes = differing(all_rules)
    with st.expander("Why the counts differ: each tokenizer's rules", icon=":material/rule:"):
        st.caption("Found by probing each tokenizer (numbers, \"go home\", \"Hello\", a rare character, \"don't\", "
                   "what it adds around \"hi\"). Bold: a rule not every row shares, so a place where counts part.")
        for c, rules in zip(chosen, all_rules):
            shown = "; ".join(f"**{escape_markdown(r)}**" if r in causes else escape_markdown(r) for r in rules)
            st.markdown(f"*{escape_markdown(c.name)}*: {shown}")
