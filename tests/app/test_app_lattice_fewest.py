"""The Lattice page's "Fewest tokens" tab under AppTest: PathPiece's path beside Viterbi's, the ties,
the corpus measurement (the course corpus at once; a trained model's corpus on request), escaping."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests import _pages as pages
from tests._pages import html_bodies, ok
from tokenizer_core.min_tokens import compare_on_pieces
from tokenizer_core.unigram.explain import course_model
from ui.lattice.fewest import course_counts

PAGE = "pages/lattice.py"


def fewest_tab(text: str, sample: str = "hf-course-hug-pug") -> AppTest:
    at = pages.open_page(PAGE, sample=sample, text=text)
    at.session_state["lattice_tab"] = "Fewest tokens"
    return ok(at.run())


def texts(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_the_course_model_shows_both_paths_the_ties_and_the_course_corpus_measured():
    at = fewest_tab("hugs")
    shown = texts(at)
    assert "Viterbi: the most likely path" in shown and "Fewest tokens (PathPiece" in shown
    assert "3 different segmentations of this piece use the fewest, 2 tokens" in shown
    assert "Viterbi's path is one of them" in shown
    chips = html_bodies(at)
    assert ">ugs</span>" in chips and ">hu</span>" in chips  # h | ugs twice, then a random tie: hu | gs
    assert "Greedy longest match" in shown and ">hug</span>" in chips  # hug | s: also two tokens here
    expected = compare_on_pieces(course_model(), course_counts())
    assert metric(at, "Tokens saved") == f"{expected.tokens_saved:.2%}"
    assert all(b.key != "lattice_fewest_measure" for b in at.button)  # measured at once


def test_a_trained_model_is_measured_on_the_corpus_when_asked():
    at = pages.open_page(PAGE, sample="sennrich-low-lower-newest-widest", text="lowest newer")
    at.number_input(key="lattice_vocab_size").set_value(300).run()
    at = ok(at.button(key="lattice_train").click().run())
    at.session_state["lattice_tab"] = "Fewest tokens"
    at = ok(at.run())
    assert not at.metric  # nothing measured before the button
    at = ok(at.button(key="lattice_fewest_measure").click().run())
    saved = float(metric(at, "Tokens saved").rstrip("%"))
    assert 0.0 <= saved < 100.0
    assert "nats per token saved" in texts(at) or "save 0.00% of the tokens" in texts(at)
    # The seed is a setting of its own: another seed redraws only the random tie-break row.
    at.number_input(key="lattice_fewest_seed").set_value(3).run()
    assert at.number_input(key="lattice_fewest_seed").value == 3 and not at.exception


def test_hostile_text_is_escaped_in_the_chips():
    at = fewest_tab("<img/src=x/onerror=alert(1)>")
    assert "<img" not in html_bodies(at)
    assert ">&lt;</span>" in html_bodies(at)  # an unknown character of its own, escaped
