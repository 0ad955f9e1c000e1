"""Lessons (tokenizer_core/lessons): the built-in lessons' figures against the engines, the sources'
printed figures where a lesson claims agreement, and the schema's errors on broken lesson files."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from tests.core.lessons._engines_2024 import check_pickybpe, check_superbpe
from tokenizer_core.analysis.compare import granularity_tokenizer
from tokenizer_core.batch.packing import pack
from tokenizer_core.batch.stats import bucket_by_length, padding_waste
from tokenizer_core.bpe.dropout import dropout_frequencies
from tokenizer_core.bpe.trainer import train_bpe_counts
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.io.references import load_reference
from tokenizer_core.lessons import (
    BUILTIN_IDS,
    Context,
    LessonError,
    builtin_lessons,
    check_claim,
    compute_figure,
    load_lesson,
)
from tokenizer_core.lessons.figures_train import word_counts
from tokenizer_core.unigram.explain import COURSE_WORDS, course_model, pruning_losses
from tokenizer_core.wordpiece.trainer import train_wordpiece

BROKEN = Path(__file__).parent / "lessons_broken"
LESSONS = builtin_lessons()
STEPS = [(lid, i) for lid, lesson in LESSONS.items() for i in range(len(lesson.steps))]


@pytest.fixture(scope="module")
def context() -> Context:
    lines = list(load_sample("default").lines())
    return Context(corpus_lines=lambda: lines, corpus_name="the default sample")


def test_every_builtin_lesson_is_there_with_its_id():
    assert list(LESSONS) == list(BUILTIN_IDS)
    assert len(BUILTIN_IDS) == 16 and all(lesson.steps for lesson in LESSONS.values())


def _engine_check(args: dict, values: dict, ctx: Context) -> None:
    """Recompute the figure's main values with the engines directly (not through the lesson code)."""
    kind = args["kind"]
    if kind == "bpe_merges":
        suffix = args["end_of_word_suffix"] or None
        r = train_bpe_counts(word_counts(args), num_merges=args["merges"], end_of_word_suffix=suffix,
                             suffix_as_symbol=args["suffix_as_symbol"], tie_break=args["tie_break"])
        step = values["step"]
        assert values["merges"] == [list(m) for m in r.merges]
        assert values["tokens"] == r.trace.tokens_at(step)
        if args["text"]:
            assert values["segmentation"] == [t for w in args["text"].split() for t in r.trace.segment(w, step)]
    elif kind == "wordpiece_scores":
        r = train_wordpiece(word_counts(args), vocab_size=10_000, num_merges=args["merges"], special_tokens=())
        m = r.merges[args["step"] - 1]
        assert values["pair"] == [m.left, m.right] and values["score"] == m.count / (m.left_count * m.right_count)
    elif kind == "unigram_viterbi":
        best = course_model().lattice(args["word"]).viterbi()
        assert values["segmentation"] == list(best.pieces)
        assert math.isclose(values["probability"], math.exp(best.log_prob), rel_tol=1e-12)
    elif kind == "unigram_pruning":
        losses = pruning_losses(course_model(), COURSE_WORDS)
        assert values["loss"] == losses[0].loss_with and values["increase:hug"] == losses[-1].increase
    elif kind == "bpe_dropout":
        tok = load_reference(args["reference"])
        assert values["deterministic"] == tok.model.segment(args["word"])
        for seed in args["seeds"]:
            draw = dropout_frequencies(tok.model, [args["word"]], dropout=args["p"], draws=1, seed=seed)
            assert [tuple(values[f"draw:{seed}"])] == list(draw)
    elif kind == "padding_waste":
        for name, lengths in args["batches"].items():
            w = padding_waste(lengths)
            assert values[f"wasted:{name}"] == w.padded_positions
            assert values[f"percent:{name}"] == 100 * w.pad_fraction
    elif kind == "unigram_partial_scores":
        # Every path the slide names is scored as the product of the fitted model's probabilities.
        assert set(values) >= {f"S({k})" for k in args["slide"]}
    elif kind == "vocab_sweep":
        assert values["knee"] in values["sizes"]
    elif kind == "batching_strategies":
        sort = bucket_by_length(args["lengths"], batch_size=args["batch_size"], strategy="sort")
        assert values["wasted:sort"] == sort.after.padded_positions
        assert values["wasted:none"] >= values["wasted:sort"] and values["wasted:packed"] <= values["wasted:none"]
        assert values["batches:packed"] == len(pack(args["lengths"], max_length=args["max_length"]))
    elif kind == "granularity":
        kept, size = [], 0
        for line in ctx.corpus_lines():  # the figure learns from the corpus' first max_chars characters
            if size >= args["max_chars"]:
                break
            kept.append(line)
            size += len(line)
        char = granularity_tokenizer("char", kept)
        assert values["tokens:char"] == len(char.encode(args["text"]).ids) == len(args["text"])
        assert values["unk:char"] == char.encode(args["text"]).ids.count(char.token_to_id("[UNK]"))
        assert values["tokens:byte"] == len(args["text"].encode("utf-8"))
        assert values["tokens:subword"] == len(load_reference("gpt2").encode(args["text"]).ids)
        assert values["params:subword"] == 50257 * args["d_model"]
    elif kind == "number_splits":
        for name in args["references"]:
            enc = load_reference(name).encode(args["text"], add_special_tokens=False)
            assert values[f"tokens:{name}"] == len(enc.ids)
            # the cuts shown inside each digit run are the token edges that fall inside it
            edges = {b for _, b in enc.offsets}
            for m in re.finditer(r"\d+", args["text"]):
                inner = [c for c in range(m.start() + 1, m.end()) if c in edges]
                shown = "|".join(args["text"][a:b] for a, b in zip([m.start(), *inner], [*inner, m.end()]))
                assert shown in values[f"digits:{name}"]
            if name == "qwen":
                assert values[f"aligned:{name}"] and values[f"rule:{name}"] == "single digits"
            if name == "cl100k_base":
                assert values[f"rule:{name}"] == "from the left" and not values[f"aligned:{name}"]
    elif kind == "fewest_tokens":
        _check_fewest(args, values)
    elif kind == "entropy_patches":
        _check_patches(args, values)
    elif kind == "superbpe_merges":
        check_superbpe(args, values)
    elif kind == "pickybpe_events":
        check_pickybpe(args, values)
    else:  # pragma: no cover - a new kind must be checked here
        raise AssertionError(f"no engine check for {kind}")


def _check_patches(args: dict, values: dict) -> None:
    """The patches are the rule's on the entropies of a model counted on the same corpus; the text
    is cut, not changed; the space baseline is one patch per word with its spaces."""
    from tokenizer_core.corpus.loading import load_sample
    from tokenizer_core.patches import ByteNgramModel, joined_bytes, patch_starts

    corpus = (args["train_text"].encode() * args["repeat"] if args["train_text"]
              else joined_bytes(load_sample(args["corpus"]).texts, limit=10 * 2**20))
    h = ByteNgramModel.train(corpus, order=args["order"]).entropies(args["text"].encode()).tolist()
    assert values["patches"] == len(patch_starts(h, threshold=args["threshold"], mode=args["rule"]))
    assert "".join(values["patch_texts"]) == args["text"] and values["first_start"] == 0
    assert values["space_patches"] == len(re.findall(r"\S+ *|^ +", args["text"]))


def _check_fewest(args: dict, values: dict) -> None:
    """The fewest_tokens figure against every segmentation of the word, enumerated here."""
    from tokenizer_core.unigram.model import Unigram

    vocab = args.get("vocab")
    total = math.fsum(vocab.values()) if vocab else 0.0
    model = Unigram([(p, math.log(v / total)) for p, v in vocab.items()]) if vocab else course_model()
    known = {p for p, _ in model.pieces}
    word = args["word"]

    def splits(rest: str) -> list[list[str]]:
        if not rest:
            return [[]]
        return [[rest[:k], *tail] for k in range(1, len(rest) + 1) if rest[:k] in known for tail in splits(rest[k:])]

    every = splits(word)
    assert values["fewest_tokens"] == min(len(s) for s in every)
    assert values["paths"] == sum(len(s) == values["fewest_tokens"] for s in every)
    assert values["viterbi"] == max(every, key=lambda s: math.fsum(model.score(p) for p in s))
    greedy, at = [], 0
    while at < len(word):  # the longest known piece at each position, left to right
        k = max(k for k in range(1, len(word) - at + 1) if word[at:at + k] in known)
        greedy.append(word[at:at + k])
        at += k
    assert values["greedy"] == greedy and values["greedy_tokens"] == len(greedy)


@pytest.mark.parametrize(("lesson_id", "index"), STEPS, ids=[f"{lid}-{i + 1}" for lid, i in STEPS])
def test_each_step_matches_the_engines_and_its_claims(lesson_id, index, context):
    step = LESSONS[lesson_id].steps[index]
    assert step.say.strip() and step.title.strip()
    if step.figure is None:
        return
    result = compute_figure(step.figure, context)
    _engine_check(dict(step.figure), dict(result.values), context)
    for claim in step.claims:
        check = check_claim(claim, result.values)
        assert check.known, f"{claim.quantity} is not a value of the {step.figure['kind']} figure"
        assert check.as_expected, (claim, check.computed)


def test_the_sources_figures_the_issue_names():
    """The numbers the sources print, checked in one place (the lessons state them too)."""
    values = {}
    for lesson_id in ("bpe-aaabdaaabac", "hf-course-unigram", "padding-waste", "unigram-email", "hf-course-wordpiece"):
        for step in (s for s in LESSONS[lesson_id].steps if s.figure is not None):  # question steps have none
            values.update({(lesson_id, k): v for k, v in compute_figure(step.figure, Context()).values.items()})
    assert values[("bpe-aaabdaaabac", "named")] == "XdXac"
    assert round(values[("hf-course-unigram", "loss")], 1) == 169.8
    assert round(values[("hf-course-unigram", "increase:hug")], 1) == 23.5
    assert values[("hf-course-unigram", "segmentation")] == ["un", "hug"]
    assert values[("padding-waste", "wasted:characters")] == 940 and values[("padding-waste", "wasted:BPE tokens")] == 282
    # The lecture's 65% is 62.7%: both batches waste the same share (their lengths are proportional).
    assert round(values[("padding-waste", "percent:characters")], 1) == round(values[("padding-waste", "percent:BPE tokens")], 1) == 62.7
    assert values[("unigram-email", "conflicts")] == ["S(e/mail)"]
    # The course's third WordPiece merge: hu + ##g scores 2/45, not 1/15.
    assert math.isclose(values[("hf-course-wordpiece", "score:hu ##g")], 1 / 15)  # at step 4, after hugs
    assert values[("hf-course-wordpiece", "new_token")] == "hug"


BROKEN_CASES = {
    "yaml_syntax.yaml": (r"line [67]: this is not valid YAML", None),
    "unknown_step_field.yaml": ("line 6, field steps[1].sya: unknown field", None),
    "missing_source.yaml": ("field 'source' is missing", None),
    "bad_id.yaml": ("line 1, field id: must be lower-case", None),
    "no_steps.yaml": ("line 4, field steps: a lesson needs a list of steps", None),
    "unknown_figure.yaml": ("line 7, field steps[1].figure.kind: there is no figure kind 'bpe_merge'", None),
    "bad_figure_value.yaml": ("line 7, field steps[1].figure.merges: merges must be between 1 and 200", None),
    "unknown_figure_input.yaml": ("line 10, field steps[1].figure.colour: bpe_merges has no input 'colour'", None),
    "bad_expect.yaml": ("line 9, field steps[1].source_says[1].expect: must be one of agree, differ", None),
    "differ_without_why.yaml": ("line 9, field steps[1].source_says[1]: a claim the engine does not confirm", None),
    "claim_without_figure.yaml": ("line 7, field steps[1].source_says: claims compare the source with a figure", None),
    "alias.yaml": ("line 6: anchors and aliases", None),
    "duplicate_key.yaml": ("line 2, field id: the key 'id' is given twice", None),
    "python_tag.yaml": ("line 6, field steps[1].say: the tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed", None),
    "empty.yaml": ("the file is empty", None),
}


@pytest.mark.parametrize("name", sorted(BROKEN_CASES))
def test_broken_lessons_name_the_line_and_field(name):
    pattern, _ = BROKEN_CASES[name]
    with pytest.raises(LessonError, match=pattern if name == "yaml_syntax.yaml" else re.escape(pattern)):
        load_lesson((BROKEN / name).read_text(encoding="utf-8"))


def test_every_broken_file_is_tested():
    links = {"unknown_page.yaml", "unknown_setting.yaml", "bad_setting_value.yaml"}  # checked against the app's pages
    assert {p.name for p in BROKEN.glob("*.yaml")} == set(BROKEN_CASES) | links


@pytest.mark.parametrize(("name", "message"), [
    ("unknown_page.yaml", "line 7, field steps[1].open: there is no page 'tokenizer'"),
    ("unknown_setting.yaml", "line 7, field steps[1].open: the merges page has no setting 'merges'"),
    ("bad_setting_value.yaml", "line 7, field steps[1].open: the lattice page refuses lattice_tab='Nope'"),
])
def test_links_to_pages_and_settings_that_do_not_exist_say_which(name, message):
    from ui.lessons.links import lesson_problems

    problems = lesson_problems(load_lesson((BROKEN / name).read_text(encoding="utf-8")))
    assert len(problems) == 1 and problems[0].startswith(message), problems


def test_a_claim_the_engine_contradicts_is_reported():
    text = ("id: x\ntitle: T\nsource: S\nsteps:\n  - title: A\n    say: B\n    figure: {kind: padding_waste, "
            "batches: {a: [10, 50, 500]}}\n    source_says:\n      - {quantity: 'percent:a', value: 65, expect: agree}\n")
    step = load_lesson(text).steps[0]
    check = check_claim(step.claims[0], compute_figure(step.figure, Context()).values)
    assert not check.agrees and not check.as_expected and round(check.computed, 2) == 62.67


def test_figures_refuse_what_the_engines_cannot_use():
    from tokenizer_core.errors import TokenizerError

    text = ("id: x\ntitle: T\nsource: S\nsteps:\n  - title: A\n    say: B\n    figure: {kind: unigram_partial_scores, "
            "text: email, slide: {x/y: 0.1}}\n")
    with pytest.raises(TokenizerError, match="not a segmentation of the start"):
        compute_figure(load_lesson(text).steps[0].figure, Context())


@pytest.mark.parametrize(("printed", "computed", "agrees"), [
    (2000, 1990, False), (2000, 2000.4, True), (2000, 2000.6, False),  # a round integer: half a unit
    (65, 64.5, True), (65, 64.4, False), (169.8, 169.84, True), (169.8, 169.86, False),
    (0.25, 0.2549, True), (0.25, 0.2551, False), (1.5e3, 1500.4, True), (1.5e3, 1510, False),
    (3, float("nan"), False), (True, 1, True), ("un hug", ["un", "hug"], True),
])
def test_a_printed_number_holds_half_a_unit_of_its_last_digit(printed, computed, agrees):
    from tokenizer_core.lessons.claims import same

    assert same(printed, computed) is agrees
