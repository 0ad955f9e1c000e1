"""The BPE step-through page driven with Streamlit's AppTest, checked against the engines."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from tests._builders import train_bpe
from tests._paths import APP
from tokenizer_core.bpe.trainer import train_bpe_counts
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.training import TrainOptions
from tokenizer_core.wordpiece.trainer import train_wordpiece

PAGE = "pages/merges.py"
TIMEOUT = 120
HUG = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
SENNRICH = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_page(sample: str | None = None, paste: str | None = None) -> AppTest:
    """The merges page, after choosing a sample (or pasting text) on the Corpus page."""
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    if sample is not None:
        at.radio(key="corpus_source").set_value("sample").run()
        at.selectbox(key="corpus_sample").set_value(sample).run()
        ok(at.button(key="corpus_use_sample").click().run())
    if paste is not None:
        at.radio(key="corpus_source").set_value("paste").run()
        at.text_area(key="corpus_paste").input(paste).run()
        ok(at.button(key="corpus_use_paste").click().run())
    return ok(at.switch_page(PAGE).run())


def click(at: AppTest, key: str) -> AppTest:
    return ok(at.button(key=key).click().run())


def stepper_data(at: AppTest) -> dict:
    """What the page sent to the step controls (step, number of steps, run id, playing)."""
    (element,) = [e for e in at.get("bidi_component") if e.proto.component_name == "tp_stepper"]
    return json.loads(element.proto.json)


def press(at: AppTest, action: str) -> AppTest:
    """Set what the step controls' command sets in the browser for ``action`` (first, prev, next,
    last, play), then rerun.

    AppTest cannot run the component's JavaScript; the command path itself (sequence numbers,
    run ids) is tested in ``test_ui_stepper.py`` and in the browser tests.
    """
    from ui.merges import state as ms
    from ui.widgets import stepper

    data = stepper_data(at)
    step_now, n, playing = data["step"], data["n"], data["playing"]
    target = {"first": 0, "prev": step_now - 1, "next": step_now + 1, "last": n, "play": step_now}[action]
    if action == "play":
        playing = not playing
        target = 0 if playing and step_now >= n else step_now
    else:
        playing = False
    at.session_state[ms.STEPPER.step] = stepper.clamp_step(target, num_steps=n)
    at.session_state[ms.STEPPER.playing] = playing
    at.session_state[ms.STEPPER.seq] = data["seq"] + 1
    return ok(at.run())


def scrub(at: AppTest, target: int) -> AppTest:
    """Set what letting go of the scrubber at ``target`` sends (a command like a button's), then rerun."""
    from ui.merges import state as ms
    from ui.widgets import stepper

    data = stepper_data(at)
    at.session_state[ms.STEPPER.step] = stepper.clamp_step(target, num_steps=data["n"])
    at.session_state[ms.STEPPER.playing] = False
    at.session_state[ms.STEPPER.seq] = data["seq"] + 1
    return ok(at.run())


def step(at: AppTest) -> int:
    return at.session_state["merges_step"]


def metrics(at: AppTest) -> dict[str, str]:
    """The step view's metric strip (one markup element, ui/widgets/metric_strip.py): label -> value."""
    bodies = "".join(h.proto.body for h in at.get("html"))
    found = re.findall(r'<div class="tp-metric" data-label="([^"]*)">.*?<div class="tp-metric-value">([^<]*)</div>',
                       bodies)
    return {html_unescape(label): html_unescape(value) for label, value in found}


def banner(at: AppTest) -> list[str]:
    """The chips of the merge banner: left, right, merged token (as shown)."""
    body = next(h.proto.body for h in at.get("html") if 'class="tp-merge"' in h.proto.body)
    return [html_unescape(t) for t in re.findall(r'<span class="tp-chip(?: tp-hl)?"[^>]*>(.*?)</span>', body)]


def html_unescape(text: str) -> str:
    import html

    return html.unescape(text)


def html_bodies(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.get("html"))


def marked_row(at: AppTest):
    frame = at.dataframe[0].value
    return frame[frame["merged next"] == "✔"].iloc[0]


def test_page_asks_for_training_first():
    at = open_page()
    assert at.title[0].value == "BPE step-through"
    assert any("press **Train**" in i.value for i in at.info)
    assert not at.metric and not metrics(at)
    # A primer for students who have never seen BPE, folded away for everyone else.
    assert at.expander[0].label.startswith("New to BPE?")
    assert "most frequent pair" in at.expander[0].markdown[0].value


def test_presenter_mode_folds_the_settings_and_offers_train_before_any_run():
    at = open_page("hf-course-hug-pug")
    at.query_params["present"] = "1"
    at = ok(at.run())
    assert at.session_state["merges_settings_open"] is False  # the settings expander is folded
    start = at.button(key="merges_start")
    assert start.proto.type == "primary" and start.label == "Train"
    assert any(i.value.startswith("Press Train to learn BPE · characters · 3 merges") for i in at.info)
    assert not any("Choose the settings" in i.value for i in at.info)  # said once
    at = click(at, "merges_start")
    assert at.subheader[0].value.startswith("Step 0 of 3")
    assert at.session_state["merges_settings_open"] is False
    with pytest.raises(KeyError):
        at.button(key="merges_start")  # gone once a run is on show
    assert not any(i.value.startswith("Press Train") for i in at.info)


def test_course_sample_stepping_matches_the_engine():
    at = open_page("hf-course-hug-pug")
    # The classic sample fills in its worked example's settings.
    assert at.session_state["merges_budget"] == 3 and at.session_state["merges_algorithm"] == "bpe"
    at = click(at, "merges_train")
    engine = train_bpe_counts(HUG, num_merges=3, special_tokens=("[UNK]",), unk_token="[UNK]").trace
    assert step(at) == 0 and at.subheader[0].value.startswith("Step 0 of 3")
    assert metrics(at)["Next pair's count"] == f"{engine[0].count:,}"
    assert (stepper_data(at)["step"], stepper_data(at)["n"]) == (0, 3)
    for k, rec in enumerate(engine, 1):
        at = press(at, "next")
        assert step(at) == k and at.subheader[0].value == f"Step {k} of 3"
        assert banner(at) == [rec.left, rec.right, rec.token]
        values = metrics(at)
        assert values["Pair count"] == f"{rec.count:,}"
        assert values["Corpus tokens"] == f"{rec.tokens_after:,}"
        row = marked_row(at)
        assert (row["left"], row["right"], row["count"]) == (rec.left, rec.right, rec.count)
    assert (stepper_data(at)["step"], stepper_data(at)["n"]) == (3, 3)  # Next and Last are off
    assert any("all 3 merges you asked for are done" in s.value.replace("\\", "") for s in at.success)
    # The course's vocabulary: 7 letters + 3 merges (+ our [UNK]).
    assert metrics(at)["Vocabulary size"] == "11"


def test_sennrich_worked_example_with_scrubber_jump_and_buttons():
    at = click(open_page("sennrich-low-lower-newest-widest"), "merges_train")
    engine = train_bpe_counts(SENNRICH, num_merges=10, end_of_word_suffix="</w>", suffix_as_symbol=True,
                              tie_break="first", special_tokens=("[UNK]",), unk_token="[UNK]").trace
    raw = ok(at.toggle(key="merges_raw_markers").set_value(True).run())  # show "</w>" as stored
    from ui.merges import state as ms

    assert stepper_data(raw)["scrubber"] and stepper_data(raw)["speeds"] == list(ms.SPEEDS)
    at = scrub(raw, 3)
    assert step(at) == 3 and banner(at) == ["est", "</w>", "est</w>"] == [engine[2].left, engine[2].right,
                                                                          engine[2].token]
    # l o and o w both occur 7 times at merge 4; the pair seen first wins.
    at = press(at, "next")
    assert banner(at)[:2] == ["l", "o"] and any("seen first" in i.value.replace("\\", "") for i in at.info)
    at = ok(at.number_input(key="merges_jump").set_value(8).run())
    assert step(at) == 8 and banner(at) == [engine[7].left, engine[7].right, engine[7].token]
    assert stepper_data(at)["step"] == 8  # the scrubber and the buttons follow the jump
    at = press(at, "prev")
    assert step(at) == 7 and at.number_input(key="merges_jump").value == 7
    assert step(press(at, "first")) == 0
    assert step(press(at, "last")) == 10


def test_teaching_table_replays_every_step_of_the_engine():
    at = click(open_page("sennrich-low-lower-newest-widest"), "merges_train")
    at = ok(at.toggle(key="merges_raw_markers").set_value(True).run())
    engine = train_bpe_counts(SENNRICH, num_merges=10, end_of_word_suffix="</w>", suffix_as_symbol=True,
                              tie_break="first", special_tokens=("[UNK]",), unk_token="[UNK]").trace
    row = marked_row(at)  # step 0: the table the first merge chooses from
    assert (row["left"], row["right"], row["count"]) == (engine[0].left, engine[0].right, engine[0].count)
    for k in range(1, len(engine) + 1):
        at = ok(at.number_input(key="merges_jump").set_value(k).run())
        row = marked_row(at)
        rec = engine[k - 1]
        assert (row["left"], row["right"], row["count"]) == (rec.left, rec.right, rec.count)


def test_wordpiece_mode_shows_scores_and_the_bpe_choice():
    at = open_page("hf-course-hug-pug")
    at = ok(at.radio(key="merges_algorithm").set_value("wordpiece").run())
    assert at.session_state["merges_pre_tokenizer"] == "bert"
    at = press(click(at, "merges_train"), "next")
    at = ok(at.toggle(key="merges_raw_markers").set_value(True).run())
    engine = train_wordpiece(HUG, vocab_size=100, num_merges=3, special_tokens=("[UNK]",))
    first = engine.merges[0]
    assert banner(at) == [first.left, first.right, first.new_token] == ["##g", "##s", "##gs"]
    assert metrics(at)["Score"] == f"{first.score:.4g}" == "0.05"
    bodies = html_bodies(at)
    assert "BPE would have merged" in bodies and ">##u<" in bodies and "20 times" in bodies
    row = marked_row(at)
    assert (row["count"], row["count(left)"], row["count(right)"]) == (5, 20, 5)
    at = ok(at.number_input(key="merges_jump").set_value(3).run())
    assert banner(at) == [engine.merges[2].left, engine.merges[2].right, engine.merges[2].new_token]


def test_stepping_reads_the_trace_and_never_retrains(monkeypatch):
    import ui.merges.cache as cache

    calls = []
    real = cache.train_run

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(cache, "train_run", counting)
    at = open_page("hf-course-hug-pug")
    at.number_input(key="merges_budget").set_value(2).run()
    at = ok(at.selectbox(key="merges_tie_break").set_value("first").run())  # settings no other test uses
    at = click(at, "merges_train")
    assert len(calls) == 1
    for action in ["next", "next", "prev", "first", "play", "play"]:
        at = press(at, action)
    at = scrub(at, 2)
    at = ok(at.text_input(key="merges_text").input("pugs hug").run())
    assert len(calls) == 1
    click(at, "merges_train")  # the same settings again: a cache hit
    assert len(calls) == 1


def test_play_and_pause_reach_the_page():
    at = click(open_page("sennrich-low-lower-newest-widest"), "merges_train")
    at = press(at, "play")  # the browser times the steps; the page is told that play is on
    assert at.session_state["merges_playing"] and stepper_data(at)["playing"]
    at = press(at, "play")
    assert not at.session_state["merges_playing"] and not stepper_data(at)["playing"]
    at = press(at, "next")
    assert step(at) == 1


def test_retraining_starts_again_at_step_zero():
    at = click(open_page("hf-course-hug-pug"), "merges_train")
    at = press(press(at, "next"), "next")
    assert step(at) == 2
    first_run = stepper_data(at)["run"]
    at = ok(at.number_input(key="merges_budget").set_value(2).run())
    at = click(at, "merges_train")
    assert step(at) == 0 and stepper_data(at)["run"] != first_run


def test_encode_panel_shows_one_strip_per_merge_and_a_merge_tree():
    at = click(open_page("hf-course-hug-pug"), "merges_train")
    at = ok(at.number_input(key="merges_jump").set_value(3).run())
    at = ok(at.text_input(key="merges_text").input("hugs pun").run())
    strips = next(h.proto.body for h in at.get("html") if 'class="tp-strips"' in h.proto.body)
    labels = re.findall(r"(#\d+)\s+", strips)
    assert labels == ["#1", "#2", "#3"]  # ug, un, hug all change "hugs pun"
    assert at.selectbox(key="merges_tree_token").value == "hug"
    tree = next(h.proto.body for h in at.get("html") if 'class="tp-tree"' in h.proto.body)
    assert "merge #3" in tree and "merge #1" in tree


def test_default_corpus_with_a_few_hundred_merges():
    at = open_page()
    at.number_input(key="merges_budget").set_value(300).run()
    at = click(at, "merges_train")
    at = press(press(at, "next"), "next")
    tok, result = train_bpe(load_sample("default").lines(),
                            options=TrainOptions(num_merges=300, special_tokens=("[UNK]",)))
    rec = result.trace[1]
    assert banner(at) == [rec.left, rec.right, rec.token]
    assert metrics(at)["Pair count"] == f"{rec.count:,}"
    assert not at.dataframe  # a big corpus: no full pair table
    assert any(c.value.replace("\\", "").startswith("Trained: BPE") for c in at.caption)
    # Both step charts are drawn as markup and download as images (PNG and SVG, made when clicked).
    keys = {b.proto.id.rsplit("-", 1)[-1] for b in at.get("download_button")}
    assert {f"merges_{c}_chart_{f}" for c in ("candidates", "compression") for f in ("png", "svg")} <= keys
    (curve,) = [e for e in at.get("bidi_component") if e.proto.component_name == "tp_drawing"]
    data = json.loads(curve.proto.json)
    assert data["overlay"][1]["tip"] == f"merge step 2: {metrics(at)['Corpus tokens']} tokens"


def test_byte_level_tokens_show_visible_spaces_or_raw_markers():
    at = open_page(paste="the cat and the hat and the bat\n" * 3)
    at = ok(at.radio(key="merges_level").set_value("byte").run())
    assert at.session_state["merges_pre_tokenizer"] == "gpt2-regex"
    at.number_input(key="merges_budget").set_value(20).run()
    at = click(at, "merges_train")
    at = ok(at.number_input(key="merges_jump").set_value(20).run())
    assert "·the" in html_unescape(html_bodies(at))
    at = ok(at.toggle(key="merges_raw_markers").set_value(True).run())
    assert "Ġthe" in html_unescape(html_bodies(at))


def test_changed_settings_are_flagged_until_trained():
    at = click(open_page("hf-course-hug-pug"), "merges_train")
    at = ok(at.checkbox(key="merges_lowercase").check().run())
    assert any("press Train to apply" in c.value.replace("\\", "") for c in at.caption)
    at = click(at, "merges_train")
    assert not any("press Train to apply" in c.value.replace("\\", "") for c in at.caption)


def test_a_vocabulary_too_small_for_any_merge_is_explained():
    at = open_page("hf-course-hug-pug")
    at = ok(at.radio(key="merges_budget_kind").set_value("vocab").run())
    at.number_input(key="merges_budget").set_value(5).run()
    at = click(at, "merges_train")
    assert any("made no merge" in w.value for w in at.warning)
    # In the page's words (its settings), not the engine's option names.
    message = at.warning[0].value.replace("\\", "")
    assert "vocabulary size you asked for (5)" in message and "Choose a vocabulary size above 8" in message
    assert "vocab_size" not in message and "limit_alphabet" not in message


def test_jump_past_the_end_goes_to_the_last_step():
    at = click(open_page("hf-course-hug-pug"), "merges_train")
    at = ok(at.number_input(key="merges_jump").set_value(99_999).run())
    assert step(at) == 3 and at.number_input(key="merges_jump").value == 3
    assert at.subheader[0].value == "Step 3 of 3"


def test_one_huge_word_keeps_the_page_small():
    # A corpus of one 200,000-letter word: the words table was 56 MB of HTML and the browser hung.
    at = open_page(paste="x" * 200_000)
    at.number_input(key="merges_budget").set_value(30).run()
    at = click(at, "merges_train")
    assert sum(len(h.proto.body) for h in at.get("html")) < 200_000
    at = press(at, "last")
    assert step(at) > 10
    assert sum(len(h.proto.body) for h in at.get("html")) < 300_000
    assert "more)" in html_unescape(html_bodies(at))  # the merged token is cut, saying by how much


@pytest.mark.parametrize("pre_tokenizer", ["whitespace-split", "whitespace"])
def test_hostile_corpus_renders_as_text(pre_tokenizer):
    hostile = "<script>window.__xss=1</script> <img src=x onerror=alert(1)> :red[x] **b**\n" * 4
    at = open_page(paste=hostile)
    at = ok(at.selectbox(key="merges_pre_tokenizer").set_value(pre_tokenizer).run())
    at.number_input(key="merges_budget").set_value(60).run()
    at = click(at, "merges_train")
    at = press(at, "last")
    at = ok(at.text_input(key="merges_text").input("<script>window.__xss=1</script> <img src=x onerror=alert(1)>")
            .run())
    bodies = html_bodies(at)
    assert not re.search(r"<\s*(script|img)", bodies, re.I)
    assert "&lt;" in bodies


@pytest.mark.parametrize("algorithm", ["bpe", "wordpiece"])
@pytest.mark.parametrize("raw_markers", [False, True])
def test_hostile_corpus_renders_as_text_at_every_step(algorithm, raw_markers):
    # Every st.html block of the page (merge banner, BPE's choice beside WordPiece's, the legend, the
    # words tables, the encode strips, the merge tree) at every step: tokens built from HTML stay text.
    hostile = "<script>x</script> <img src=x onerror=alert(1)> <b>b</b> <i>i</i> a&amp;b\n" * 3
    at = open_page(paste=hostile)
    at = ok(at.radio(key="merges_algorithm").set_value(algorithm).run())
    at = ok(at.selectbox(key="merges_pre_tokenizer").set_value("whitespace-split").run())
    at.number_input(key="merges_budget").set_value(40).run()
    at = click(at, "merges_train")
    if raw_markers:
        at = ok(at.toggle(key="merges_raw_markers").set_value(True).run())
    at = ok(at.text_input(key="merges_text").input("<script>x</script> <img src=x onerror=alert(1)>").run())
    bodies = []
    while True:
        bodies.append(html_bodies(at))
        if step(at) >= at.session_state["merges_budget"] or len(bodies) > 45:
            break
        before = step(at)
        at = press(at, "next")
        if step(at) == before:
            break
    joined = "".join(bodies)
    assert len(bodies) > 5
    assert not re.search(r"<\s*(script|img|b|i)\b", joined, re.I)
    assert "&lt;script&gt;" in joined
    if algorithm == "wordpiece":
        assert "BPE would have merged" in joined


def test_leaving_a_classic_sample_restores_the_usual_settings():
    at = open_page("hf-course-hug-pug")
    assert at.session_state["merges_budget"] == 3
    at = ok(at.switch_page("pages/corpus.py").run())
    at.radio(key="corpus_source").set_value("sample").run()
    at.selectbox(key="corpus_sample").set_value("default").run()
    ok(at.button(key="corpus_use_sample").click().run())
    at = ok(at.switch_page(PAGE).run())
    assert at.session_state["merges_budget"] == 2000
    assert at.session_state["merges_marker"] == "none" and at.session_state["merges_min_frequency"] == 0


def test_single_chips_get_the_focus_popup_css_from_the_page_layout():
    """The BPE page draws single chips (chip_html), not chip rows: the page-wide layout CSS carries
    the chips' focus rule, so a focused chip shows its id and bytes there too."""
    from ui.widgets.tokens import CHIP_CSS

    at = click(open_page("hf-course-hug-pug"), "merges_train")
    bodies = [h.proto.body for h in at.get("html")]
    chips = [b for b in bodies if 'class="tp-chip' in b and 'tabindex="0"' in b and "data-tip=" in b]
    assert chips and not any(CHIP_CSS in b for b in chips)  # the page's own chips come without it
    assert sum(CHIP_CSS in b for b in bodies) == 1  # once, in the layout CSS
    assert ".tp-chip[data-tip]:focus::after" in CHIP_CSS
