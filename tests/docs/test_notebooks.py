"""The notebooks of docs/notebooks run from top to bottom and show the course notes' numbers.

Each notebook is executed by nbclient in a fresh kernel ("python3", from ipykernel), as a
student's Jupyter would; then the outputs of named cells (the cells' ids) are checked for the
numbers the notes print (tables compared with their runs of spaces as one). The notebooks
are stored without outputs, so these are the outputs of this run.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("nbconvert")

NOTEBOOKS = Path(__file__).resolve().parents[2] / "docs" / "notebooks"


def _load_render() -> Any:
    # docs/notebooks/render.py: how the notebooks are executed and rendered, one copy
    spec = importlib.util.spec_from_file_location("render", NOTEBOOKS / "render.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


render = _load_render()
_executed: dict[str, Any] = {}


def executed(name: str) -> Any:
    """The notebook run once in this session (the kernel's figures inline, as PNG)."""
    if name not in _executed:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
            f"{name} is stored with outputs: clear them (Jupyter: Edit > Clear Outputs of All "
            "Cells)"
        )
        with pytest.MonkeyPatch.context() as mp:
            mp.delenv("MPLBACKEND", raising=False)
            _executed[name] = render.execute(NOTEBOOKS / name)
    return _executed[name]


# notebook -> cell id -> what its output must contain (the notes' numbers; runs of spaces
# in the output count as one)
EXPECTED: dict[str, dict[str, list[str]]] = {
    "01_match_reviews.ipynb": {
        "reviews-table": ["keeper was sharp and composed", "match was not composed"],
        "document-term-table": ["keeper was sharp and composed match brilliant not"],
        "mle-table": ["P(y) 2/5 3/5", "keeper 0/2 1/3", "was 2/2 2/3", "not 2/2 0/3"],
        "match-was-sharp": ["'negative': (Fraction(0, 1), 0.0)", "(Fraction(32, 3645), 0.00878)"],
        "match-was-sharp-proba": ["array(['positive']", "array([[0., 1.]])"],
        "not-sharp-match": ["'negative': Fraction(0, 1), 'positive': Fraction(0, 1)}, None, True"],
        "not-sharp-match-proba": ["the classifier cannot decide", "array([[nan, nan]])"],
        "laplace-table": ["keeper (0 + 1)/(2 + 2·1) = 1/4 (1 + 1)/(3 + 2·1) = 2/5",
                          "not (2 + 1)/(2 + 2·1) = 3/4 (0 + 1)/(3 + 2·1) = 1/5"],
        "smoothed-decides": ["{'negative': 0.856, 'positive': 0.144}"],
        "parameter-count": ["(17, 511)"],
        "parameter-growth": ["8 17 511"],
        "samples": ["positive", "negative"],
    },
    "02_week8_spam_gaussian.ipynb": {
        "spam-counts": ["ham 1 0 0 1 3 1 6",
                        "spam 2 2 2 0 0 0 6"],
        "laplace-table": ["free (1 + 1)/(6 + 6) = 1/6 (2 + 1)/(6 + 6) = 1/4",
                          "money (0 + 1)/(6 + 6) = 1/12 (2 + 1)/(6 + 6) = 1/4"],
        "free-money": ["'ham': Fraction(1, 144), 'spam': Fraction(1, 32)",
                       "'ham': 0.182, 'spam': 0.818"],
        "free-money-proba": ["array(['spam']", "array([[0.182, 0.818]])"],
        "no-smoothing": ["'ham': Fraction(0, 1)"],
        "parameter-counts": ["2 3 7 15",
                             "2 10 21 2047"],
        "gaussian-parameters": ["+ [1.0, 3.0] 2.0 1.0 0.5",
                                "- [4.0, 6.0] 5.0 1.0 0.5"],
        "gaussian-posterior": ["{'+': 0.242, '-': 0.054}", "array([[0.818, 0.182]])"],
        "gaussian-boundary": ["3.5"],
        "gaussian-plot": ["<Figure"],
        "your-turn-5": ["{'A': 0.242, 'B': 0.0044}", "array(['A']", " 2.0)"],
        "gaussian-samples": ["count mean var"],
        "gaussian-samples-plot": ["<Figure"],
        "spam-samples": ["spam", "ham"],
    },
    "03_text_event_models.ipynb": {
        "decisions": ["you stupid thing 1 1", "I love him 0 0", "he is a stupid garbage 1 1"],
        # the walk-through's printed scores, to 12 decimals
        "walkthrough-scores": ["you stupid thing -3.976561526566 -3.251665647691",
                               "I love him -8.423126682377 -10.525105164770",
                               "he is a stupid garbage -9.809421043497 -9.426492876102"],
        "bernoulli-table": ["dog (1 + 1)/(2 + 3) (1 + 1)/(2 + 2)"],
        "event-models-posterior": ["'Bernoulli': {0: 0.842, 1: 0.158}"],
        "binary-counts": ["True"],
        "parameter-counts": ["'|C| + |C||V|': 60", "'Bernoulli, free': 59",
                             "'multinomial, free': 57"],
    },
    "04_spam_filter.ipynb": {
        "spam-tokens": ["'bi:free money'", "'money'", "'header:Subject:1'"],
        "free-money": ["ham (spamicity 0.205959, log-odds -1.35)",
                       "log-odds lowered by ham_bias / clues = 8 / 2 = 4.00",
                       "0.8571 ham 0 spam 2 money"],
        # Robinson's f(w), by hand, in fractions: the filter's to 12 digits (asserted)
        "f-by-hand": ["s = 1/10, x = 1/2, c = 1, n_ham = 3, n_spam = 3",
                      "money 0 2 6/7 0.857143", "bi:free money 0 1 37/44 0.840909"],
        "fisher-by-hand": ["I = (1 + H - S)/2 = 0.924023",
                           "log-odds = -1.349459 (the filter's: -1.349459)"],
        "no-bias": ["verdict='spam', spamicity=0.934044"],
        "cannot-decide": ["unsure (spamicity 0.500000, log-odds 0.00)", "0 clues combined"],
        "register": ["(('unsure', 0.6434), ('spam', 0.9466), True)"],
        "sms-verdicts": ["ham 1333 0 28", "spam 15 169 29"],
        "sms-clues": ["spam (spamicity 1.000000", "claim"],
    },
}  # fmt: skip


def _text(output: Any) -> str:
    if output.get("output_type") == "stream":
        return str(output["text"])
    if output.get("output_type") == "error":
        return f"{output['ename']}: {output['evalue']}"
    return str(output.get("data", {}).get("text/plain", ""))


def test_every_notebook_is_checked() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_runs_and_shows_the_notes_numbers(name: str) -> None:
    nb = executed(name)
    cells = {c.get("id"): c for c in nb.cells if c.cell_type == "code"}
    for c in cells.values():
        errors = [o for o in c.outputs if o.output_type == "error"]
        assert not errors, f"{name}, cell {c.get('id')}: {_text(errors[0])}"
    for cell_id, wanted in EXPECTED[name].items():
        assert cell_id in cells, f"{name} has no cell with id {cell_id!r}"
        shown = "\n".join(_text(o) for o in cells[cell_id].outputs)
        for text in wanted:  # tables compared with their runs of spaces as one space
            assert " ".join(text.split()) in " ".join(shown.split()), (
                f"{name}, cell {cell_id}: {text!r} not in\n{shown}"
            )
    # the figures are drawn (PNG), not only their text form
    pictures = [o for c in cells.values() for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(pictures) == sum(s == ["<Figure"] for s in EXPECTED[name].values())


CHROMIUM = render.CHROMIUM


@pytest.mark.skipif(
    not os.path.exists(CHROMIUM) and not os.environ.get("NBAYES_REQUIRE_BROWSER"),
    reason=f"no chromium at {CHROMIUM} (Debian: apt-get install chromium)",
)
def test_rendered_page_typesets_the_math(tmp_path: Path) -> None:
    # what render.py shows a reader: the HTML page in headless chromium, MathJax run
    sync_api = pytest.importorskip("playwright.sync_api")
    if not render.LOCAL_MATHJAX.exists():
        missing = f"no {render.LOCAL_MATHJAX} (Debian: apt-get install libjs-mathjax)"
        if os.environ.get("NBAYES_REQUIRE_BROWSER"):  # .ci/run installs it
            raise AssertionError(missing)
        pytest.skip(missing)
    page_file = tmp_path / "01_match_reviews.html"
    page_file.write_text(render.to_html(executed("01_match_reviews.ipynb")), encoding="utf-8")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=render.FLAGS)
        try:
            page = browser.new_page(viewport={"width": render.WIDTH, "height": render.HEIGHT})
            page.goto(page_file.as_uri())
            render.typeset(page)
            typeset = page.evaluate("document.querySelectorAll('.MathJax_CHTML').length")
            errors = page.evaluate(
                "document.querySelectorAll('.MathJax_Error, .mjx-merror').length"
            )
            text = page.inner_text("body")
            page.screenshot(path=str(tmp_path / "shot.png"))
        finally:
            browser.close()
    assert typeset >= 10, "MathJax typeset almost nothing: is the page's MathJax loading?"
    assert errors == 0
    assert "$" not in text, "raw TeX left on the page"
    assert "Fraction(32, 3645), 0.00878" in text
    assert (tmp_path / "shot.png").stat().st_size > 10_000
