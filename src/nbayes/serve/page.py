"""The page at ``GET /``: try the model in a browser (one HTML file, no other assets).

Paste or drop a text (or fill the form of a table model's columns): the page shows the
predicted class, the most probable classes with their probabilities, the words coloured
by their evidence for the predicted class (green for, red against, grey unknown), and
the exact derivation on request. It talks to ``/info`` and ``/explain`` only.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["page_html"]


@cache
def page_html() -> str:
    """The page (``page.html`` beside this module)."""
    return resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8")
