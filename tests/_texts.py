"""Real and tricky text shared by the foundation tests (not a test module)."""

from __future__ import annotations

import pydoc_data.topics

TRICKY = [
    "GPT-4 costs $0.01/token.",
    "héllo wörld  \n\n  tabs\tand\r\nCRLF",
    "Ünïcödé NFKC: ﬁne ＡＢＣ ① ½ e\u0301 x\u0308",
    "中文字符 日本語のテキスト 한국어 텍스트",
    "Ελληνικά ΟΔΟΣ Русский текст العربية עברית हिन्दी",
    "emoji 😀👍🏽 family 👨‍👩‍👧 flags 🇫🇷",
    "<script>alert('x')</script> <img src=x onerror=alert(1)>",
    "it's we're they've I'm you'll he'd DON'T",
    "   leading and trailing spaces   ",
    "",
    " ",
    "\x00\x07control\u200bzero\ufeffwidth\ufffd",
    "a" * 300,
    "1234567890 3.14159 1,000,000",
]


def real_lines(limit: int = 1500) -> list[str]:
    """Lines of real English prose (Python's own documentation topics) plus the tricky strings."""
    lines: list[str] = []
    for key in sorted(pydoc_data.topics.topics):
        lines.extend(pydoc_data.topics.topics[key].splitlines())
        if len(lines) >= limit:
            break
    return lines[:limit] + TRICKY
