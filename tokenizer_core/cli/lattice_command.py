"""The ``lattice`` command: a Unigram tokenizer's lattice for each pre-tokenized piece of a text,
with its Viterbi path, n best segmentations, edge marginals and entropy.

The text goes through the tokenizer's own normalizer and pre-tokenizer first, so the pieces are
the ones ``encode`` would hand the model (one piece for the whole normalized text of an imported
SentencePiece model, which segments sentences, not words). ``--json`` prints
``{"pieces": [report, ...]}`` (see :func:`~tokenizer_core.unigram.lattice_report.lattice_report`)
and, when the text makes exactly one piece, that piece's keys at the top level too.

>>> import io, json
>>> from tokenizer_core.cli import main
>>> out = io.StringIO()
>>> main(["lattice", "--reference", "gpt2", "hi"], stdout=out)   # BPE: refused, exit code 2
2
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from tokenizer_core.cli.common import load_tokenizer
from tokenizer_core.errors import TokenizerError
from tokenizer_core.unigram.lattice_report import check_report_options, lattice_report

#: Keys of a piece's report repeated at the top level when the text is one piece.
_ONE_PIECE_KEYS = ("text", "viterbi", "nbest", "marginals", "entropy")


def add_lattice_parser(sub: Any) -> None:
    """The ``lattice`` subcommand."""
    lat = sub.add_parser("lattice", help="Unigram: Viterbi path, n-best, edge marginals and entropy of each piece")
    lat.add_argument("-t", "--tokenizer", help="tokenizer file (own JSON format) with a Unigram model")
    lat.add_argument("--reference", help="a pretrained reference instead of a file")
    lat.add_argument("text", nargs="?", help="the text (default: read stdin)")
    lat.add_argument("--nbest", type=int, default=5, help="how many best segmentations to list (default 5)")
    lat.add_argument("--alpha", type=float, default=1.0,
                     help="smoothing of probabilities, marginals and entropy: P(s) ∝ exp(alpha·score) (default 1)")
    lat.add_argument("--json", action="store_true", help="print {\"pieces\": [...]} instead of tables")


def _source_name(args: argparse.Namespace) -> str:
    return args.reference if args.reference else Path(args.tokenizer or "the tokenizer").name


def _model_pieces(tok: Any, text: str) -> list[str]:
    """The pre-tokenized pieces the model sees (added tokens are cut out before the model)."""
    pieces = []
    for p in tok.explain(text).pieces:
        added_id = tok.added.token_to_id(p.text)
        if added_id is not None and len(p.tokens) == 1 and p.tokens[0].id == added_id:
            continue
        pieces.append(p.text)
    return pieces


def lattice_reports(tok: Any, text: str, *, nbest: int, alpha: float, source: str = "the tokenizer") -> dict[str, Any]:
    """``{"pieces": [report, ...]}`` for ``text`` (plus the one piece's keys at the top level)."""
    check_report_options(nbest=nbest, alpha=alpha)
    build = getattr(tok.model, "lattice", None)
    if build is None:
        kind = getattr(tok.model, "type_name", type(tok.model).__name__)
        raise TokenizerError(f"lattice needs a Unigram tokenizer; {source} is {kind}")
    reports = [lattice_report(build(piece), nbest=nbest, alpha=alpha) for piece in _model_pieces(tok, text)]
    out: dict[str, Any] = {"pieces": reports}
    if len(reports) == 1:
        out.update({k: reports[0][k] for k in _ONE_PIECE_KEYS})
    return out


def cmd_lattice(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    """``lattice``: one report per piece of TEXT (or stdin), as JSON or as tables."""
    # Checked before loading: a bad option should not wait for a large reference to load.
    check_report_options(nbest=args.nbest, alpha=args.alpha)
    tok = load_tokenizer(args)
    text = args.text if args.text is not None else stdin.read().rstrip("\r\n")
    result = lattice_reports(tok, text, nbest=args.nbest, alpha=args.alpha, source=_source_name(args))
    if args.json:
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        out.write("\n".join(_table(r) for r in result["pieces"]))
    return 0


def _shown(pieces: list[str]) -> str:
    # repr-like quoting keeps spaces, tabs and empty pieces visible in a terminal.
    return " ".join(json.dumps(p, ensure_ascii=False) for p in pieces)


def _table(report: dict[str, Any]) -> str:
    """One piece's report as readable text: header, n-best rows, edge rows."""
    best = report["viterbi"]
    lines = [f"piece {json.dumps(report['text'], ensure_ascii=False)}: entropy {report['entropy']:.4f} nats",
             f"  viterbi  score {best['score']:.4f}  {_shown(best['pieces'])}",
             f"  {'rank':>4}  {'probability':>11}  {'score':>10}  pieces"]
    for rank, path in enumerate(report["nbest"], 1):
        lines.append(f"  {rank:>4}  {path['probability']:>11.4%}  {path['score']:>10.4f}  {_shown(path['pieces'])}")
    lines.append(f"  {'start':>5}  {'end':>4}  {'log_prob':>10}  {'marginal':>8}  piece")
    for e in report["marginals"]:
        lines.append(f"  {e['start']:>5}  {e['end']:>4}  {e['log_prob']:>10.4f}  {e['marginal']:>8.4f}  "
                     f"{json.dumps(e['piece'], ensure_ascii=False)}")
    return "\n".join(lines) + "\n"
