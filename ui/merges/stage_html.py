"""What the step view says about SuperBPE's two stages: which one a step is in, where the switch is,
and how many of stage 2's merges so far made a token that crosses a space (a *superword*, underlined
wherever its chip is drawn: :func:`ui.widgets.tokens.spans_space`).

>>> from tokenizer_core.corpus.loading import corpus_from_text
>>> from ui.merges.settings import MergeSettings
>>> from ui.merges.training import train_run
>>> run = train_run(corpus_from_text("of the cat and of the dog\\n" * 3),
...                 MergeSettings(algorithm="superbpe", budget_kind="vocab", budget=266, transition=97))
>>> "Stage 1 of 2" in stage_html(run, 1), "Stage 2 begins" in stage_html(run, 3)
(True, True)
>>> run.superwords_until(6)
2
"""

from __future__ import annotations

import html

from ui.merges.superbpe_run import SuperBpeRun


def stage_html(run: SuperBpeRun, step: int) -> str:
    """One line of markup (escaped) naming the stage of ``step`` and what changes at the switch."""
    t = run.transition_step
    if t >= run.num_steps:
        note = ("Stage 1 only: training stopped before the vocabulary reached the switch "
                f"({run.transition_size:,} tokens), so this run is plain byte-level BPE.")
    elif step <= t:
        note = (f"Stage 1 of 2 (subwords): merges stay inside words, as plain BPE's. Stage 2 begins after merge "
                f"#{t:,}, at {run.transition_size:,} tokens.")
    elif step == t + 1:
        note = ("Stage 2 begins with this merge: from here SuperBPE trains on whole lines, so a merge may join "
                "words across a space. Tokens that cross a space are underlined.")
    else:
        made = run.superwords_until(step)
        note = (f"Stage 2 of 2 (superwords, since merge #{t + 1:,}): {made:,} of its {step - t:,} merges so far "
                "made a token that crosses a space (underlined).")
    return f'<div class="tp-stage" style="margin:0.3rem 0">{html.escape(note)}</div>'
