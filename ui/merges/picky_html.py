"""What the step view says about PickyBPE's removals: which tokens a merge used up, their Intersection
over Self against the threshold, and what their last occurrences split back into (escaped markup).

>>> from tokenizer_core.corpus.loading import corpus_from_text
>>> from ui.merges.settings import MergeSettings
>>> from ui.merges.training import train_run
>>> run = train_run(corpus_from_text("abc abc abc abc ab\\n"),
...                 MergeSettings(algorithm="pickybpe", budget_kind="vocab", budget=260, threshold=70))
>>> "IoS = 4 / (4 + 1) = 0.8 &gt; 0.7" in removals_html(run, 2, translate=True)
True
>>> "No token removed" in removals_html(run, 1, translate=True)
True
>>> from ui.widgets.safe_html import markup_problems
>>> markup_problems(removals_html(run, 2, translate=True))
[]
"""

from __future__ import annotations

import html

from ui.merges.picky_run import PickyRun
from ui.widgets.tokens import chip_html


def removals_html(run: PickyRun, step: int, *, translate: bool) -> str:
    """The removals of ``step`` (or that there were none), and how many so far."""
    def chip(token: str) -> str:
        return chip_html(run.token_id(token), token, scheme=run.scheme, translate=translate)

    so_far = run.removed_until(step)
    total = f"{so_far:,} removal{'s' if so_far != 1 else ''} so far"
    if step == 0:
        return f'<div class="tp-removals">Removals come after merges ({html.escape(total)} at step 0).</div>'
    rows = []
    for r in run.removals_at(step):
        occ = f"{r.remaining:,} remaining occurrence{'s' if r.remaining != 1 else ''}"
        split = " + ".join(chip(t) for t in r.split)
        rows.append(
            f"<div>• {chip(r.token)} removed: IoS = {r.merged:,} / ({r.merged:,} + {r.remaining:,}) = {r.ios:.3g} "
            f"&gt; {run.threshold:g}, so merge #{step:,} used it up; its {html.escape(occ)} split back into "
            f"{split}.</div>")
    if not rows:
        head = (f"No token removed at this step: both tokens of the merge are still used elsewhere "
                f"(IoS at most {run.threshold:g}); {total}.")
        return f'<div class="tp-removals">{html.escape(head)}</div>'
    head = html.escape(f"PickyBPE removed {len(rows)} token{'s' if len(rows) != 1 else ''} after this merge ({total}):")
    return f'<div class="tp-removals"><strong>{head}</strong><div style="margin:0.2rem 0 0.2rem 0.8rem">{"".join(rows)}</div></div>'
