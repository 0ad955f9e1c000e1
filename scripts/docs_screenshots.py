"""The docs' page screenshots (docs/img/*.png), taken from a fresh ``streamlit run`` in Chromium.

Each page is opened from a link that sets it up (the BPE page trained and on a step, the lattice on a
word), at 1280x800 in the light theme, and its first screen is saved with 128 colours (a tenth of the
bytes of a full-colour PNG, text still sharp). Run from the project root after a change that shows::

    python scripts/docs_screenshots.py            # every page
    python scripts/docs_screenshots.py patches    # only the pictures named
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.app_server import CHROMIUM, CHROMIUM_ARGS, running_app  # noqa: E402

#: Picture name -> the link that sets the page up.
SHOTS = {
    "corpus": "/",
    "tokenizers": "/tokenizers",
    "merges": "/merges?step=12",
    "compare": "/compare?text=Tokenizers%20split%20unhappiness%20into%20pieces.",
    "lattice": "/lattice?text=unhappiness",
    "batch": "/batch",
    "chat": "/chat",
    "lessons": "/lessons?lesson=bpe-aaabdaaabac&step=3",
    "patches": "/patches",
}
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def main(names: list[str]) -> int:
    from PIL import Image
    from playwright.sync_api import sync_playwright

    out = ROOT / "docs" / "img"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as cache, running_app(Path(cache)) as app, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        for name, link in SHOTS.items():
            if names and name not in names:
                continue
            page.goto(app.url + link)
            page.wait_for_selector("[data-testid=stMain] h1", timeout=120_000)
            page.wait_for_selector(IDLE, timeout=120_000)
            page.wait_for_timeout(1500)  # charts finish drawing after the run ends
            page.wait_for_selector(IDLE, timeout=120_000)
            png = Image.open(io.BytesIO(page.screenshot())).convert("RGB").quantize(colors=128)
            png.save(out / f"{name}.png", optimize=True)
            print(f"{name}: {(out / f'{name}.png').stat().st_size // 1024} KB")
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
