"""BoundlessBPE: BPE that may also merge two complete pretokens into a superword (Schmidt et al., 2025).

``trainer`` runs the merge loop over two states: ``words`` (the pretokens, ordinary BPE with
PickyBPE-style removals) and ``superwords`` (runs of pretokens that may join, ``runs``; ``layout``
says which), both on the exact pair counts of ``pairs``. ``events`` is its trace, ``model`` the
tokenizer's model, which encodes by replaying the training events in order (``replay``), and
``recipe`` the trainer of the command line and the app. Importing the package registers the model
and the pre-tokenizer, so saved BoundlessBPE tokenizers load.
"""

from tokenizer_core.boundless.model import BoundlessBPE
from tokenizer_core.boundless.runs import BoundlessRuns

__all__ = ["BoundlessBPE", "BoundlessRuns"]
