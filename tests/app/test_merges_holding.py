"""The BPE page's "words holding the new token" finds exactly what segmenting every kept word finds,
for every algorithm, level and marker, at every step (the substring test only skips words)."""

from __future__ import annotations

import pytest

from tokenizer_core.corpus.loading import load_sample
from ui.merges.holding import holding_needle, joined_symbols
from ui.merges.run import MergeRun, TreeNode
from ui.merges.settings import MergeSettings
from ui.merges.training import train_run

SETTINGS = [
    MergeSettings(budget=120),
    MergeSettings(budget=120, level="byte"),
    MergeSettings(budget=120, marker="glued"),
    MergeSettings(budget=120, marker="symbol", lowercase=True),
    MergeSettings(budget=120, algorithm="wordpiece"),
    MergeSettings(budget=120, algorithm="wordpiece", level="byte"),
]


def scanned(run: MergeRun, token: str, step: int, n: int) -> list[tuple[str, int, list[str]]]:
    """The slow answer: every kept word segmented."""
    out = []
    for word, count in run.top_words:
        seg = run.segment(word, step)
        if token in seg:
            out.append((word, count, seg))
            if len(out) >= n:
                break
    return out


@pytest.fixture(scope="module")
def corpus():
    return load_sample("multilingual")


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: f"{s.algorithm}-{s.level}-{s.marker}")
def test_words_holding_a_token_match_the_full_scan(corpus, settings):
    run = train_run(corpus, settings)
    checked = 0
    for step in range(1, run.num_steps + 1, 7):
        info = run.step_info(step)
        # The step's own token, and one made later (which no word holds yet) or one made earlier.
        for token, at in ((info.token, step), (info.token, max(step - 3, 0)), (run.step_info(1).token, step)):
            assert run.words_with(token, at, 16) == scanned(run, token, at, 16), (token, at)
            checked += 1
    assert checked > 40


def test_a_needle_is_none_for_a_collapsed_tree_and_symbols_never_split_a_match():
    collapsed = TreeNode("hug", 3, 2, TreeNode("hu", 2, 1), TreeNode("g", 4))  # "hu" merged, not expanded
    assert holding_needle(collapsed) is None
    # A symbol holding the separator-like text still matches only whole symbols side by side.
    assert holding_needle(TreeNode("ab", 5, 1, TreeNode("a", 0), TreeNode("b", 1))) in joined_symbols(["x", "a", "b"])
    assert holding_needle(TreeNode("ab", 5, 1, TreeNode("a", 0), TreeNode("b", 1))) not in joined_symbols(["ab"])
