"""Which kept words can hold a token: a cheap test before segmenting them.

A word holds a token after some merges only if the token's initial symbols (the leaves of its merge
tree) sit side by side among the word's initial symbols. Both are written as one string, each symbol
between separators, so the test is one substring search; it never says no to a word that holds the
token (a separator inside a symbol can only add matches), so the page segments the words it lets
through and the answer is exactly the slow scan's. The BPE page asks this on every step, for a
thousand kept words: segmenting all of them with the merges so far took most of a step's server time.

>>> from ui.merges.tree import TreeNode
>>> tree = TreeNode("hug", 3, 2, TreeNode("hu", 2, 1, TreeNode("h", 0), TreeNode("u", 1)), TreeNode("g", 4))
>>> needle = holding_needle(tree)
>>> needle in joined_symbols(["h", "u", "g", "s"]), needle in joined_symbols(["u", "g", "h"])
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # run.py imports this module
    from ui.merges.tree import TreeNode

#: Between symbols (any character works: one inside a symbol can only add matches).
SEP = "\x1f"
#: A tree with more merges than this is not expanded for the test (the page scans every word then).
NEEDLE_NODES = 4096


def joined_symbols(symbols: Sequence[str]) -> str:
    """``symbols`` as one string, each between separators."""
    return SEP + SEP.join(symbols) + SEP


def holding_needle(tree: TreeNode) -> Optional[str]:
    """The string a word's :func:`joined_symbols` must contain to hold ``tree``'s token, or None when
    the tree was cut short (a collapsed merge is no initial symbol)."""
    leaves: list[str] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.left is not None and node.right is not None:
            stack += (node.right, node.left)
        elif node.step is not None:
            return None  # merged, but left collapsed: its symbols are unknown here
        else:
            leaves.append(node.token)
    return joined_symbols(leaves)
