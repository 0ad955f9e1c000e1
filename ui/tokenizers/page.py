"""The Tokenizers page: the shelf (add, pick, download, remove) and, for the tokenizer picked, its
vocabulary, pipeline, special tokens and BPE merge trees.

The views' tabs run lazily, as on the Compare page: only the open one is computed. Both open tabs
(the views' and the Add panel's) are in the address like every input.

>>> VIEW_TABS[0], VIEW_TAB, ADD_TAB
('Vocabulary', 'tokenizers_tab', 'tokenizers_add_tab')
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from tokenizer_core.errors import TokenizerError
from tokenizer_core.io.transformers_export import TransformersOptions, transformers_zip
from tokenizer_core.pipeline import Tokenizer
from ui import cache, url_state
from ui import session as state
from ui.shelf import state as shelf
from ui.tokenizers import PREFIX, add, explore, imports, stages
from ui.tokenizers.explore import render_merge_tree, render_specials, render_vocabulary
from ui.tokenizers.residue import render_residue
from ui.tokenizers.stages import component_name, render_pipeline
from ui.widgets import display, shelf_picker
from ui.widgets.export import table
from ui.widgets.shelf_picker import Picked
from ui.widgets.text import escape_markdown


def _shelf_table(items: list[shelf.ShelfItem]) -> None:
    frame = pd.DataFrame({"name": [i.name for i in items], "kind": [shelf.KIND_LABELS[i.kind] for i in items],
                          "details": [i.detail for i in items]})
    table(frame, key=PREFIX + "shelf_table", name="shelf", hide_index=True, height=min(320, 40 + 35 * len(items)))


def _make_files(tok: Tokenizer) -> tuple[str, str, str]:
    own = json.dumps(tok.to_dict(), ensure_ascii=False)
    try:
        return own, json.dumps(tok.to_hf_json(), ensure_ascii=False), ""
    except TokenizerError as err:
        return own, "", str(err)


def _transformers_zip(tok: Tokenizer, stem: str) -> bytes:
    # Made on click (a whole vocabulary, zipped): most views of the page never download it.
    return transformers_zip(tok, folder=stem, options=TransformersOptions())


def _downloads(held: Picked) -> None:
    item, tok = held.item, held.tokenizer
    # A row that wraps (buttons as wide as their labels): four fixed columns cut the labels at 1024 px.
    row = st.container(horizontal=True)
    stem = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in item.name)[:40] or "tokenizer"
    # This app's JSON, the tokenizer.json ('' when there is none) and why not, made once per content:
    # serializing a 100k-token vocabulary takes longer than everything else the page draws.
    own, hf, error = cache.DOWNLOADS.get_or_make((held.digest,), lambda: _make_files(tok))
    row.download_button("App JSON", help="This app's own format (every stage, loads back here)", data=own,
                       file_name=f"{stem}.playground.json", mime="application/json", key=PREFIX + "dl_own",
                       icon=":material/download:")
    if error:
        row.caption(escape_markdown(f"No tokenizer.json: {error}"))
    else:
        row.download_button("tokenizer.json", help="Hugging Face tokenizers format", data=hf,
                           file_name="tokenizer.json", mime="application/json", key=PREFIX + "dl_hf",
                           icon=":material/download:")
        row.download_button("transformers (zip)", data=lambda: _transformers_zip(tok, stem),
                           help="A folder for transformers: AutoTokenizer.from_pretrained(folder) loads it "
                                "(tokenizer.json, tokenizer_config.json, special_tokens_map.json). More "
                                "options: python -m tokenizer_core export --format transformers --help",
                           file_name=f"{stem}-transformers.zip", mime="application/zip", key=PREFIX + "dl_transformers",
                           on_click="ignore", icon=":material/download:")
    if item.kind != shelf.Kind.REFERENCE:
        with row.popover("Rename", icon=":material/edit:", help="A name of your own (links made before keep the old one)"):
            with st.form(PREFIX + "rename_form", border=False):
                st.text_input("New name", placeholder=item.name, max_chars=shelf.MAX_NAME, key=PREFIX + "rename_to")
                st.form_submit_button("Rename", on_click=_rename, args=(item,), icon=":material/check:")
        row.button("Remove", help="Take it off the shelf", key=PREFIX + "remove", on_click=shelf.remove, args=(item.key,),
                  icon=":material/delete:")


def _rename(item: shelf.ShelfItem) -> None:
    """Callback of Rename: the tokenizer is shelved under the new name and shown (before the picker)."""
    renamed = shelf.rename(item.key, str(st.session_state.get(PREFIX + "rename_to", "")))
    if renamed is not None:
        add.select(renamed)


def _summary(tok: Tokenizer) -> None:
    stages = [("normalizer", tok.normalizer), ("pre-tokenizer", tok.pre_tokenizer), ("model", tok.model),
              ("post-processor", tok.post_processor), ("decoder", tok.decoder)]
    st.markdown(" → ".join(f"{name} `{escape_markdown(component_name(c))}`" for name, c in stages))


ADD_TABS = ("Train on the active corpus", "Upload a file", "Hugging Face Hub")
VIEW_TABS = ("Vocabulary", "Pipeline on a text", "Special tokens", "Merge tree", "Residue & glitch tokens")
ADD_TAB, VIEW_TAB = PREFIX + "add_tab", PREFIX + "tab"  # the open tabs (?tokenizers_tab=Merge+tree)

#: Every input of the page kept in its address, the open tabs included.
URL_PARAMS = (shelf_picker.param(add.SELECTED, add.SELECTED), *add.URL_PARAMS, *explore.URL_PARAMS,
              *stages.URL_PARAMS, url_state.choice(ADD_TAB, ADD_TAB, ADD_TABS, default=ADD_TABS[0]),
              url_state.choice(VIEW_TAB, VIEW_TAB, VIEW_TABS, default=VIEW_TABS[0]))


def render_page() -> None:
    """The whole page (called by ``pages/tokenizers.py``)."""
    url_state.seed(URL_PARAMS)
    display.intro(
        "Every tokenizer of this session sits on the **shelf**, shared by every page: the ones you "
        "train or import here, the ones the BPE page trains, and pretrained references that work offline."
    )
    with st.expander("Add a tokenizer to the shelf", expanded=False, icon=":material/add:"):
        # All three panels are drawn: they are inputs that cost nothing to draw, and a file picked in
        # the Upload panel must survive a look at another panel (Streamlit cannot put it back).
        tab_train, tab_upload, tab_hub = st.tabs(ADD_TABS, key=ADD_TAB, on_change="rerun")
        with tab_train:
            add.train_panel()
        with tab_upload:
            imports.upload_panel(params=add.UPLOAD_PARAMS, select=add.select)
        with tab_hub:
            imports.hub_panel(select=add.select)

    items = shelf.items()
    with display.folded("Shelf"):  # a slide shows the tokenizer picked, not the list
        _shelf_table(items)
    # Options are labels, not keys: what a user reads is what the widget holds.
    pick, toggle = st.columns([3, 1.4], vertical_alignment="bottom")
    held = shelf_picker.pick_one(key=add.SELECTED, where=pick)
    translate = display.markers_toggle("tokenizers", container=toggle)
    if held is None:
        url_state.publish(URL_PARAMS)
        return
    tok = held.tokenizer
    st.caption(escape_markdown(held.item.detail))
    _summary(tok)
    _downloads(held)
    # Only the open view runs (Streamlit reruns the page when another tab is picked): the vocabulary's
    # table and corpus count, the pipeline, the special tokens and the merge tree are made on demand.
    vocab, pipeline, specials, trees, residues = st.tabs(VIEW_TABS, key=VIEW_TAB, on_change="rerun")
    if residues.open:
        with residues:
            render_residue(held, state.active_corpus(), translate=translate)
    elif pipeline.open:
        with pipeline:
            render_pipeline(tok, translate=translate)
    elif specials.open:
        with specials:
            render_specials(tok)
    elif trees.open:
        with trees:
            render_merge_tree(tok, translate=translate)
    else:
        with vocab:
            render_vocabulary(held, state.active_corpus(), translate=translate)
    url_state.publish(URL_PARAMS)
