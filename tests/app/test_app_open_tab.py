"""Only the open tab computes, on the Lattice, Batch and Tokenizers pages (Compare's own test is in
test_app_compare_reruns.py): the expensive functions of the tabs not on show are spied on and never
called, those of the open tab are; a link or a click opens another tab and computes only that one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

from tests._pages import ok, open_page
from tokenizer_core.unigram.model import Unigram
from ui.batch import views as batch_views
from ui.lattice import page as lattice_page
from ui.lattice import views as lattice_views
from ui.tokenizers import explore
from ui.tokenizers import page as tokenizers_page


@pytest.fixture
def spy(monkeypatch) -> Callable[..., Counter]:
    """``spy(owner, name, ...)`` counts the calls of ``owner.name`` (still calling it) in one Counter."""
    calls: Counter[str] = Counter()

    def install(owner, *names: str) -> Counter:  # noqa: ANN001 (a module or a class)
        for name in names:
            real = getattr(owner, name)

            def counting(*args, _name=name, _real=real, **kwargs):  # noqa: ANN002, ANN003, ANN202
                calls[_name] += 1
                return _real(*args, **kwargs)

            monkeypatch.setattr(owner, name, counting)
        return calls

    return install


def show(at: AppTest, key: str, tab: str) -> AppTest:
    """Open ``tab`` as a click on it does: the tab's state changes and the page reruns."""
    at.session_state[key] = tab
    return ok(at.run())


def test_the_lattice_page_computes_only_its_open_tab(spy):
    calls = spy(lattice_views, "viterbi_table", "entropy", "sample_frequencies", "exact_distribution",
                "dropout_frequencies", "pruning_losses")
    spy(lattice_page, "lattice_figure")
    spy(Unigram, "lattice")
    at = open_page("pages/lattice.py", sample="hf-course-hug-pug", text="hugs")
    assert at.get("plotly_chart")  # the open tab: the lattice
    assert calls == Counter({"lattice": 1, "lattice_figure": 1}), calls  # nothing of the other five
    assert not at.dataframe  # no table of another tab
    with pytest.raises(KeyError):
        at.selectbox(key="lattice_bpe")  # nor BPE-dropout's picker (choosing it loads GPT-2)
    calls.clear()
    at = show(at, "lattice_tab", "BPE-dropout")
    assert calls["dropout_frequencies"] == 1
    assert set(calls) == {"dropout_frequencies"}, calls  # not even the lattice is built for it
    calls.clear()
    at = show(at, "lattice_tab", "n-best and entropy")
    assert set(calls) == {"lattice", "entropy"}, calls
    assert at.number_input(key="lattice_nbest").value == 5


def test_the_batch_page_computes_only_its_open_tab(spy):
    calls = spy(batch_views, "_grid", "heatmap", "packed_mask", "padding_waste", "waste_by_batch_size", "pack",
                "batch_to_json", "npz_bytes", "equivalent_call")
    at = open_page("pages/batch.py")
    assert at.dataframe  # the open tab: the grid
    assert calls == Counter({"_grid": 1}), calls
    calls.clear()
    at = show(at, "batch_tab", "Masks")
    assert calls["heatmap"] == 4 and calls["packed_mask"] == 1
    assert set(calls) == {"heatmap", "packed_mask"}, calls
    calls.clear()
    at = show(at, "batch_tab", "Export")
    assert set(calls) == {"batch_to_json", "npz_bytes", "equivalent_call"}, calls
    # The values of a tab not drawn are kept: the grid's field comes back as it was left.
    at = show(at, "batch_tab", "Batch")
    at = ok(at.radio(key="batch_field").set_value("input_ids").run())
    at = show(show(at, "batch_tab", "Waste and throughput"), "batch_tab", "Batch")
    assert at.radio(key="batch_field").value == "input_ids"


def test_the_tokenizers_page_computes_only_its_open_view(spy):
    calls = spy(tokenizers_page, "render_vocabulary", "render_pipeline", "render_specials", "render_merge_tree")
    spy(explore, "_counts", "added_token_rows", "bounded_tree")
    at = open_page("pages/tokenizers.py", sample="hf-course-hug-pug")
    assert calls == Counter({"render_vocabulary": 1, "_counts": 1}), calls  # the open view: the vocabulary
    calls.clear()
    at.query_params["tokenizers_tab"] = "Merge tree"  # a link naming the view
    at = ok(at.run())
    assert at.session_state["tokenizers_tab"] == "Merge tree"
    assert calls == Counter({"render_merge_tree": 1}), calls  # the corpus is not encoded for it
    at = ok(at.text_input(key="tokenizers_tree_token").input("Ġthe").run())
    assert calls["bounded_tree"] == 1 and "render_vocabulary" not in calls
    calls.clear()
    at = show(at, "tokenizers_tab", "Special tokens")
    assert calls == Counter({"render_specials": 1, "added_token_rows": 1}), calls
    # Back on the merge tree, the token typed there is still there.
    at = show(at, "tokenizers_tab", "Merge tree")
    assert at.text_input(key="tokenizers_tree_token").value == "Ġthe"
