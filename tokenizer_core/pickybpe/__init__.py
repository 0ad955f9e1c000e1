"""PickyBPE: BPE training that removes the intermediate tokens its merges used up (Chizhov et al., 2024).

``trainer`` runs the merge loop and decides the removals (on ``state``: exact pair and token
counts, the merge and split operations), ``events`` is its trace, ``model`` the tokenizer's model,
which encodes by replaying the training events in order (``replay``). Importing the package
registers the model, so saved PickyBPE tokenizers load.
"""

from tokenizer_core.pickybpe.model import PickyBPE

__all__ = ["PickyBPE"]
