"""Execute the notebooks, render them to HTML and screenshot them in headless Chromium.

    python docs/notebooks/render.py [OUT]          # default OUT: build/notebooks

For each notebook NAME.ipynb of this folder it writes OUT/NAME.html (executed, with its
outputs; the math typeset by MathJax, a local copy when Debian's libjs-mathjax is installed,
else nbconvert's default from the web) and OUT/NAME-1.png, NAME-2.png, ... (the page in
screens of 1100 x 1400 pixels), to look at before a change to the notebooks or to the
displays they show is merged. Needs the [test] extra (nbclient, nbconvert, playwright) and
Debian's chromium (/usr/bin/chromium; never `playwright install`). The notebooks in git stay
without outputs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import nbclient
import nbformat
from nbconvert import HTMLExporter

HERE = Path(__file__).resolve().parent
LOCAL_MATHJAX = Path("/usr/share/javascript/mathjax/MathJax.js")
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WIDTH, HEIGHT = 1100, 1400


def execute(path: Path) -> Any:
    """Run one notebook from top to bottom in a fresh "python3" kernel; the executed
    notebook (its outputs filled in)."""
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}
    ).execute()
    return nb


def to_html(nb: Any) -> str:
    """An executed notebook as one HTML page (JupyterLab's look, math by MathJax)."""
    exporter = HTMLExporter(template_name="lab")
    if LOCAL_MATHJAX.exists():
        exporter.mathjax_url = f"{LOCAL_MATHJAX.as_uri()}?config=TeX-AMS_CHTML-full"
    html, _ = exporter.from_notebook_node(nb)
    return str(html)


def render_html(path: Path, out: Path) -> Path:
    """Execute one notebook and write it as HTML; returns the HTML file."""
    target = out / f"{path.stem}.html"
    target.write_text(to_html(execute(path)), encoding="utf-8")
    return target


def typeset(page: Any) -> None:
    """Wait until MathJax 2 (nbconvert's) has typeset the loaded page, when it is there."""
    page.wait_for_load_state("load")
    page.evaluate(
        """() => new Promise(done => {
            if (!window.MathJax || !window.MathJax.Hub) return done();
            window.MathJax.Hub.Queue(done);
        })"""
    )


def screenshots(pages: list[Path]) -> list[Path]:
    """Each page in screens of WIDTH x HEIGHT, after MathJax has typeset it."""
    from playwright.sync_api import sync_playwright

    shots = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        for html in pages:
            page.goto(html.as_uri())
            typeset(page)
            height = page.evaluate("document.documentElement.scrollHeight")
            for i, top in enumerate(range(0, height, HEIGHT), start=1):
                page.evaluate(f"window.scrollTo(0, {top})")
                shot = html.with_name(f"{html.stem}-{i}.png")
                page.screenshot(path=str(shot))
                shots.append(shot)
        browser.close()
    return shots


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="build/notebooks", type=Path)
    parser.add_argument("--no-screenshots", action="store_true", help="only the HTML")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    pages = [render_html(nb, args.out) for nb in sorted(HERE.glob("*.ipynb"))]
    for page in pages:
        print(page)
    if not args.no_screenshots:
        for shot in screenshots(pages):
            print(shot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
