"""A merge tree: how a token of the BPE page is built from the symbols it started as.

>>> tree = TreeNode("hug", 3, 2, TreeNode("hu", 2, 1, TreeNode("h", 0), TreeNode("u", 1)), TreeNode("g", 4))
>>> tree.leaves(), tree.is_leaf
(['h', 'u', 'g'], False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class TreeNode:
    """How a token is built: leaves are initial symbols; inner nodes name the merge step that made them.

    A node with a ``step`` but no children is a merge left collapsed because the tree was too big to draw.
    """

    token: str
    token_id: Optional[int]
    step: Optional[int] = None
    left: Optional["TreeNode"] = None
    right: Optional["TreeNode"] = None

    @property
    def is_leaf(self) -> bool:
        return self.left is None or self.right is None

    def leaves(self) -> list[str]:
        if self.left is None or self.right is None:
            return [self.token]
        return self.left.leaves() + self.right.leaves()
