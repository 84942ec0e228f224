"""How nbayes' results show in a notebook, on a blackboard and in a paper.

Every object here is a view of numbers the models and :mod:`nbayes.explain` computed: it
formats them (text, Markdown, LaTeX, HTML: IPython's display protocol, ``_repr_html_``,
``_repr_latex_``, ``_repr_markdown_``) and computes nothing of its own. Displays are cheap
and import nothing heavy (pandas only in :meth:`ParameterTable.to_pandas`).

* :class:`ParameterTable`: a model's estimates as the course notes print them
  (``model.parameter_table()``): unreduced fractions such as 1/3, 0/2, 2/2, priors 3/5.
* :class:`TopPredictions`: ``predict_top``'s ``(labels, probabilities)``.
* :class:`InformativeFeatures`: ``most_informative_features``' list.
* :class:`Summary`: ``MixedNB.summary()``, a str with an HTML table.
* ``explanation_*``: an :class:`~nbayes.explain.Explanation` as LaTeX, Markdown or HTML.
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ._families._base import ParameterBlock
from ._families._common import Estimate, Factor

if TYPE_CHECKING:
    from .explain import Explanation

__all__ = [
    "InformativeFeatures",
    "ParameterTable",
    "Summary",
    "TopPredictions",
    "explanation_html",
    "explanation_latex",
    "explanation_markdown",
]

#: Fractions whose numerator or denominator has more digits are shown shortened (their
#: value in scientific form and their size); the exact value stays on the object.
SHOWN_DIGITS = 40  # as nbayes.explain.MAX_DIGITS
#: Rows of a parameter block shown in a notebook (``to_pandas()`` has them all).
SHOWN_ROWS = 40
#: A parameter table's text is written as its rows are made (:meth:`ParameterTable.lines`):
#: its columns are as wide as their widest cell among this many rows, spread over the
#: table (all of them in a smaller table), the first column at most ``NAME_WIDTH`` wide
#: then; a wider cell overflows its column instead of widening every row.
WIDTH_ROWS = 500
NAME_WIDTH = 40
#: The colours of the service's page (evidence for / against the class)
FOR_RGB, AGAINST_RGB = "22, 128, 61", "196, 43, 28"
#: the bars of the classes not predicted (the predicted class's are FOR_RGB)
OTHER_RGB = "36, 87, 197"
_CSS_TABLE = "border-collapse:collapse;font-size:13px;margin:4px 0"
_CSS_CELL = "padding:3px 8px;border-bottom:1px solid #edf0f3;text-align:right"
_CSS_HEAD = "padding:3px 8px;border-bottom:1px solid #d8dde3;color:#5d6773;text-align:right"
_CSS_NAME = "padding:3px 8px;border-bottom:1px solid #edf0f3;text-align:left"


def _e(x: Any) -> str:
    return html.escape(str(x))


def _digits(n: int) -> int:
    return int(abs(n).bit_length() * 0.30103) + 1


def _short(q: Fraction) -> bool:
    return _digits(q.numerator) <= SHOWN_DIGITS and _digits(q.denominator) <= SHOWN_DIGITS


def text_width(s: str) -> int:
    """The columns ``s`` takes in a terminal: 2 for a wide (CJK) character, 0 for a
    combining mark, else 1, so that the text tables' columns line up.

    >>> text_width("naïve"), text_width("日本語"), text_width("e\u0301")
    (5, 6, 1)
    """
    if s.isascii():
        return len(s)
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in s
    )


def _pad(s: str, width: int, right: bool = False) -> str:
    """``s`` padded with spaces to ``width`` terminal columns (:func:`text_width`)."""
    fill = " " * max(width - text_width(s), 0)
    return fill + s if right else s + fill


def _tex_text(x: Any) -> str:
    """``x`` as LaTeX text (``\\text{...}`` with TeX's special characters escaped)."""
    s = str(x)
    for a, b in (("\\", r"\backslash "), ("{", r"\{"), ("}", r"\}"), ("_", r"\_"),
                 ("%", r"\%"), ("&", r"\&"), ("#", r"\#"), ("$", r"\$"), ("^", r"\^{}"),
                 ("~", r"\~{}")):  # fmt: skip
        s = s.replace(a, b)
    return rf"\text{{{s}}}"


def _md(x: Any) -> str:
    """``x`` in a Markdown table cell."""
    return str(x).replace("|", r"\|").replace("\n", " ")


# ------------------------------------------------------------------- numbers
def _sci_tex(text: str) -> str:
    """``1.234e-50`` as ``1.234 \\times 10^{-50}``."""
    m = re.fullmatch(r"(-?[\d.]+)e([+-]\d+)", text)
    if not m:
        return text
    return rf"{m.group(1)} \times 10^{{{int(m.group(2))}}}"


def rational_tex(q: Fraction) -> str:
    """``\\frac{3}{5}``, ``2``; a fraction too long to show as its value and size."""
    if not _short(q):
        from .explain import show_fraction

        value, _, size = show_fraction(q, SHOWN_DIGITS).partition(" (")
        return rf"{_sci_tex(value)}\ \text{{({_e_tex(size)}}}"
    if q.denominator == 1:
        return str(q.numerator)
    sign = "-" if q < 0 else ""
    return rf"{sign}\frac{{{abs(q.numerator)}}}{{{q.denominator}}}"


def _e_tex(s: str) -> str:
    return s.replace("%", r"\%").replace("_", r"\_")


def _nested_tex(q: Fraction) -> str:
    """A rational inside a fraction: ``\\tfrac{1}{2}``."""
    return rational_tex(q).replace(r"\frac", r"\tfrac")


def estimate_tex(e: Estimate | Factor) -> str:
    """``\\frac{1}{3}``, ``\\frac{0}{2}``; smoothed ``\\frac{1 + 1}{3 + 2 \\cdot 1}``."""
    if isinstance(e, Factor):
        top, bottom = e.in_whole_numbers()
        text = rf"\frac{{{_nested_tex(top)}}}{{{_nested_tex(bottom)}}}"
        if e.one_number():
            text = rational_tex(top)
        return text if e.power == 1 else rf"\left({text}\right)^{{{e.power}}}"
    if not e.smoothed:
        return rf"\frac{{{_nested_tex(e.count)}}}{{{_nested_tex(e.total)}}}"
    num = f"{_nested_tex(e.count)} + {_nested_tex(e.alpha)}"
    if e.k is not None and e.extra == e.alpha * e.k:
        extra = rf"{e.k} \cdot {_nested_tex(e.alpha)}"
    else:
        extra = _nested_tex(e.extra)
    return rf"\frac{{{num}}}{{{_nested_tex(e.total)} + {extra}}}"


def _frac_html(num: str, den: str) -> str:
    """A stacked fraction in HTML (no MathJax needed)."""
    return (
        '<span style="display:inline-flex;flex-direction:column;vertical-align:middle;'
        'text-align:center;line-height:1.15;margin:0 1px">'
        f'<span style="border-bottom:1px solid currentColor;padding:0 2px">{num}</span>'
        f'<span style="padding:0 2px">{den}</span></span>'
    )


def rational_html(q: Fraction) -> str:
    if not _short(q):
        from .explain import show_fraction

        return _e(show_fraction(q, SHOWN_DIGITS))
    if q.denominator == 1:
        return str(q.numerator)
    sign = "−" if q < 0 else ""
    return sign + _frac_html(str(abs(q.numerator)), str(q.denominator))


def _plain_rational(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def estimate_html(e: Estimate | Factor) -> str:
    if isinstance(e, Factor):
        top, bottom = e.in_whole_numbers()
        if e.one_number():
            text = _e(_plain_rational(top))
        else:
            text = _frac_html(_plain_rational(top), _plain_rational(bottom))
        if e.power == 1:
            return text
        # one box (a labelled factor stacks its children: "(", the fraction, ")" and the
        # power were put one under the other)
        return (
            '<span style="display:inline-flex;align-items:center;white-space:nowrap">'
            f'({text})<sup style="align-self:flex-start;font-size:70%">{e.power}</sup></span>'
        )
    num, den = e.parts()
    return _frac_html(_e(num), _e(den))


def _value_text(value: Any, exact: bool) -> str:
    if isinstance(value, Estimate):
        if not exact:
            return _decimal(float(value.value))
        text = str(value)
        return f"{text} = {value.value}" if value.smoothed else text
    return _decimal(float(value)) if not exact else f"{float(value):.6g}"


def _decimal(v: float) -> str:
    if math.isnan(v):
        return "nan"
    return f"{v:.4g}"


# ----------------------------------------------------------- parameter table
class ParameterTable:
    """A fitted model's estimated parameters, as the course notes print them.

    Made by ``model.parameter_table(exact=True)``. The first block is the class prior
    P(y) (``3/5``), then the model's blocks of per-feature parameters, one row per
    feature (per category of a categorical feature), one column per class:

    * Bernoulli: P(x_j = 1 | y) as count / class size, unreduced (``0/2``, ``2/2``); with
      smoothing the pseudo-counts written in: ``(1 + 1)/(3 + 2·1) = 2/5``;
    * multinomial P(w | y), complement P(w | not y), categorical P(x_j = k | y), Poisson
      rates: the same, with their own totals;
    * Gaussian: the mean and the variance per class and feature (decimals).

    With ``exact=False`` every parameter is shown in decimals. It shows as text
    (``str``), Markdown, LaTeX and HTML (in a notebook, shortened to ``SHOWN_ROWS`` rows
    per block); :meth:`to_pandas` has every value. A text model's table has a row per
    term: :meth:`lines` writes it a line at a time (``nbayes info --parameters``), and
    :meth:`head` and :meth:`select` give a table of some of its rows (``table.select(f for
    f, _, _ in model.most_informative_features(10))``: the ten most informative).

    Examples
    --------
    >>> from nbayes import BernoulliNB
    >>> X = [[1, 0], [1, 1], [0, 1]]
    >>> table = BernoulliNB(alpha=0).fit(X, ["a", "a", "b"]).parameter_table(
    ...     feature_names=["free", "money"])
    >>> print(table)
                    a    b
    P(y)            2/3  1/3
    P(x_j = 1 | y)
    free            2/2  0/1
    money           1/2  1/1
    >>> table.get("free", "a")
    Estimate(2/2)
    >>> print(table.select(["money"]))
                    a    b
    P(y)            2/3  1/3
    P(x_j = 1 | y)
    money           1/2  1/1
    """

    def __init__(
        self,
        classes: Sequence[Any],
        feature_names: Sequence[str],
        blocks: list[ParameterBlock],
        exact: bool = True,
    ) -> None:
        self.classes = [_plain(c) for c in classes]
        self.feature_names = [str(n) for n in feature_names]
        self.blocks = blocks
        self.exact = exact
        #: per block, the rows shown (None: every row): :meth:`head` and :meth:`select`
        self._shown: list[Sequence[int] | None] = [None] * len(blocks)

    # ------------------------------------------------------------- access
    def _row_name(self, block: ParameterBlock, r: int) -> str:
        j = block.features[r]
        if j < 0:
            return block.symbol
        name = self.feature_names[j] if j < len(self.feature_names) else f"x{j}"
        if block.levels is not None:
            return f"{name} = {block.levels[r]}"
        return name

    def cell(self, block: ParameterBlock, c: int, r: int) -> Any:
        """The parameter of class ``c`` and row ``r`` of ``block``: an unreduced
        :class:`~nbayes._families._common.Estimate` (exact) or a float."""
        if self.exact:
            return block.estimate(c, r)
        return float(block.values[c, r])

    def get(self, feature: str, cls: Any, block: int | None = None) -> Any:
        """The parameter of ``feature`` (``"P(y)"`` for the prior; ``"name = level"`` for a
        categorical feature's level) and class ``cls``, of the first block that has it
        (or of ``blocks[block]``)."""
        c = self.classes.index(_plain(cls))
        which = range(len(self.blocks)) if block is None else [range(len(self.blocks))[block]]
        for i in which:
            b = self.blocks[i]
            for r in self._rows_of(i):
                if self._row_name(b, r) == feature:
                    return self.cell(b, c, r)
        raise KeyError(f"No parameter for {feature!r}; {self._features_said()}.")

    def _features_said(self) -> str:
        """The features, named (the first few of a long list) for an error message."""
        names = self.feature_names
        if len(names) <= 20:
            return f"the features are {names!r}"
        return f"the {len(names):,} features are {', '.join(map(repr, names[:10]))}, ..."

    def _rows_of(self, i: int) -> Sequence[int]:
        """The rows of ``blocks[i]`` this table shows."""
        shown = self._shown[i]
        return range(self.blocks[i].n_rows) if shown is None else shown

    def _with_rows(self, shown: list[Sequence[int] | None]) -> ParameterTable:
        table = ParameterTable(self.classes, (), self.blocks, exact=self.exact)
        table.feature_names = self.feature_names  # (the same list: not copied)
        table._shown = shown
        return table

    # ------------------------------------------------------------ some rows
    def head(self, n: int = 10) -> ParameterTable:
        """The table of the first ``n`` rows of each block of per-feature parameters (and
        the prior): what ``| head`` shows of a long table, without making the rest.

        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB(alpha=1).fit([[2, 0, 1], [0, 1, 1]], ["spam", "ham"])
        >>> print(model.parameter_table(feature_names=["free", "lunch", "now"]).head(1))
              ham                      spam
        P(y)  1/2                      1/2
        P(w | y)
        free  (0 + 1)/(2 + 3·1) = 1/5  (2 + 1)/(3 + 3·1) = 1/2
        """
        n = max(int(n), 0)
        return self._with_rows([
            shown if b.features == [-1] else self._rows_of(i)[:n]
            for i, (b, shown) in enumerate(zip(self.blocks, self._shown, strict=True))
        ])  # fmt: skip

    def select(self, features: Iterable[Any]) -> ParameterTable:
        """The table of the rows of ``features`` only (and the prior), in the order given
        (in each block: a Gaussian's means, then its variances): every row of a feature (a
        categorical feature's categories), or one row by its name (``"city = a"``). A name
        the table lacks is a KeyError naming it.

        ``table.select(f for f, _, _ in model.most_informative_features(10))`` shows the
        ten features that separate the classes best (``nbayes info --parameters --top 10``).
        """
        wanted = list(dict.fromkeys(str(f) for f in features))
        position = {name: j for j, name in enumerate(self.feature_names)}
        found: set[str] = set()
        shown: list[Sequence[int] | None] = []
        for i, b in enumerate(self.blocks):
            if b.features == [-1]:  # the prior: no feature's
                shown.append(self._shown[i])
                continue
            rows_of: dict[int, list[int]] = {}
            for r, feature_of_r in enumerate(b.features):
                rows_of.setdefault(feature_of_r, []).append(r)
            current = self._shown[i]
            allowed = None if current is None else set(current)
            rows: list[int] = []
            for name in wanted:
                j = position.get(name)
                if j is not None and j in rows_of:
                    picked = rows_of[j]
                else:  # one category's row: "name = level"
                    feature, sep, level = name.rpartition(" = ")
                    j = position.get(feature) if sep else None
                    if j is None or j not in rows_of or b.levels is None:
                        continue
                    levels = b.levels
                    picked = [r for r in rows_of[j] if str(levels[r]) == level]
                picked = [r for r in picked if allowed is None or r in allowed]
                if picked:
                    found.add(name)
                    rows.extend(picked)
            shown.append(rows)
        missing = [name for name in wanted if name not in found]
        if missing:
            more = f" and {len(missing) - 5:,} more" if len(missing) > 5 else ""
            listed = ", ".join(map(repr, missing[:5]))
            raise KeyError(f"No rows for {listed}{more} in this table; {self._features_said()}.")
        return self._with_rows(shown)

    def prior(self, cls: Any) -> Any:
        """P(y = cls): ``3/5`` (exact) or a float."""
        return self.cell(self.blocks[0], self.classes.index(_plain(cls)), 0)

    def _row(self, b: ParameterBlock, r: int) -> tuple[str, list[Any]]:
        """Row ``r`` of block ``b``: its label and its cells, made now."""
        return self._row_name(b, r), [self.cell(b, c, r) for c in range(len(self.classes))]

    def _rows(self, max_rows: int | None) -> Iterator[tuple[str, Any, list[Any] | None]]:
        """(kind, block or row label, cells), made as they are asked for: "head" rows name
        a block; "more" rows say how many were left out."""
        for i, b in enumerate(self.blocks):
            rows = self._rows_of(i)
            if not rows and self._shown[i] is not None:
                continue  # a block none of whose rows were chosen: not even its name
            if b.features != [-1]:
                yield "head", b, None
            n = len(rows) if max_rows is None else min(len(rows), max_rows)
            for r in rows[:n]:
                yield "row", *self._row(b, r)
            if n < len(rows):
                yield "more", f"… {len(rows) - n:,} more rows (to_pandas() has them all)", None

    def _text_widths(self, max_rows: int | None) -> list[int]:
        """The text view's column widths: the widest cell of each column among the rows,
        or, in a table of more than ``WIDTH_ROWS`` rows, among ``WIDTH_ROWS`` of them
        spread over it (the first column then at most ``NAME_WIDTH`` wide)."""
        where = []  # (block, the rows shown)
        for i, b in enumerate(self.blocks):
            rows = self._rows_of(i)
            where.append((b, rows if max_rows is None else rows[:max_rows]))
        total = sum(len(rows) for _, rows in where)
        picked = range(total)
        if total > WIDTH_ROWS:
            picked = range(0, total, -(-total // WIDTH_ROWS))
        width = [0, *(text_width(str(c)) for c in self.classes)]
        at, start = 0, 0  # the block of row k, and the position of its first row
        for k in picked:
            while k >= start + len(where[at][1]):
                start += len(where[at][1])
                at += 1
            b, rows = where[at]
            label, cells = self._row(b, rows[k - start])
            texts = [label, *(_value_text(v, self.exact) for v in cells)]
            width = [max(w, text_width(t)) for w, t in zip(width, texts, strict=True)]
        if total > WIDTH_ROWS:
            width[0] = min(width[0], NAME_WIDTH)
        return width

    def lines(self, format: str = "text", max_rows: int | None = None) -> Iterator[str]:
        """The table as ``format`` (``"text"``, ``"markdown"`` or ``"latex"``), a line
        at a time (no newlines), each row made as it is asked for: what
        ``nbayes info --parameters`` prints, its first line at once however many rows
        follow. ``"\\n".join(table.lines(format))`` is ``to_text()``, ``to_markdown()`` or
        ``to_latex()``. ``max_rows``: of each block (a line then says how many more).

        The text columns are as wide as their widest cell; in a table of more than
        ``WIDTH_ROWS`` rows, as their widest among ``WIDTH_ROWS`` rows spread over it (the
        first column at most ``NAME_WIDTH`` characters wide): a wider cell overflows its
        column, written whole, rather than widening every row.
        """
        lines = {"text": self._text_lines, "markdown": self._markdown_lines,
                 "latex": self._latex_lines}.get(format)  # fmt: skip
        if lines is None:
            raise ValueError(f"format must be 'text', 'markdown' or 'latex', not {format!r}.")
        return lines(max_rows)

    # ---------------------------------------------------------- renderings
    def _text_lines(self, max_rows: int | None) -> Iterator[str]:
        width = self._text_widths(max_rows)

        def line(texts: list[str]) -> str:
            return "  ".join(_pad(x, w) for x, w in zip(texts, width, strict=True)).rstrip()

        yield line(["", *map(str, self.classes)])
        for kind, what, cells in self._rows(max_rows):
            if kind == "head":
                yield what.symbol
            elif kind == "more":
                yield what
            else:
                assert cells is not None
                yield line([what, *(_value_text(v, self.exact) for v in cells)])

    def to_text(self, max_rows: int | None = None) -> str:
        return "\n".join(self._text_lines(max_rows))

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        kinds = ", ".join(b.symbol for b in self.blocks)
        some = ""
        if any(shown is not None for shown in self._shown):
            blocks = [i for i, b in enumerate(self.blocks) if b.features != [-1]]
            shown = sum(len(self._rows_of(i)) for i in blocks)
            some = f", {shown:,} of {sum(self.blocks[i].n_rows for i in blocks):,} rows"
        return (
            f"<ParameterTable of {len(self.feature_names)} features x {len(self.classes)} "
            f"classes: {kinds}{'' if self.exact else ' (decimals)'}{some}>"
        )

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.to_text(SHOWN_ROWS))

    def _markdown_lines(self, max_rows: int | None) -> Iterator[str]:
        yield "| | " + " | ".join(_md(c) for c in self.classes) + " |"
        yield "|---" * (len(self.classes) + 1) + "|"
        blank = " |" * len(self.classes)
        for kind, what, cells in self._rows(max_rows):
            if kind == "head":
                yield f"| **{_md(what.symbol)}** |" + blank
            elif kind == "more":
                yield f"| {_md(what)} |" + blank
            else:
                assert cells is not None
                shown = [_md(_value_text(v, self.exact)) for v in cells]
                yield f"| {_md(what)} | " + " | ".join(shown) + " |"

    def to_markdown(self, max_rows: int | None = None) -> str:
        return "\n".join(self._markdown_lines(max_rows))

    def _repr_markdown_(self) -> str:
        return self.to_markdown(SHOWN_ROWS)

    def _cell(
        self,
        v: Any,
        estimate: Callable[[Estimate], str],
        rational: Callable[[Fraction], str],
        escape: Callable[[str], str],
    ) -> str:
        """One cell in a markup (LaTeX or HTML): an estimate as its formula (and value,
        when smoothed) when ``exact``, else a decimal; any other value as text."""
        if isinstance(v, Estimate):
            if not self.exact:
                return _decimal(float(v.value))
            text = estimate(v)
            return f"{text} = {rational(v.value)}" if v.smoothed else text
        return escape(_value_text(v, self.exact))

    def _tex_cell(self, v: Any) -> str:
        return self._cell(v, estimate_tex, rational_tex, str)

    def _latex_lines(self, max_rows: int | None) -> Iterator[str]:
        n = len(self.classes)
        yield "$$"
        yield rf"\begin{{array}}{{l{'c' * n}}}"
        yield " & " + " & ".join(_tex_text(c) for c in self.classes) + r" \\ \hline"
        for kind, what, cells in self._rows(max_rows):
            if kind == "head":
                yield rf"\hline {what.latex} & " + " & " * (n - 1) + r" \\"
            elif kind == "more":
                yield _tex_text(what) + " & " * n + r" \\"
            else:
                assert cells is not None
                label = r"P(y)" if what == "P(y)" else _tex_text(what)
                yield label + " & " + " & ".join(self._tex_cell(v) for v in cells) + r" \\"
        yield r"\end{array}"
        yield "$$"

    def to_latex(self, max_rows: int | None = None) -> str:
        """The table as a LaTeX ``array`` in display math (``$$ ... $$``)."""
        return "\n".join(self._latex_lines(max_rows))

    def _repr_latex_(self) -> str:
        return self.to_latex(SHOWN_ROWS)

    def _html_cell(self, v: Any) -> str:
        return self._cell(v, estimate_html, rational_html, _e)

    def to_html(self, max_rows: int | None = SHOWN_ROWS) -> str:
        n = len(self.classes)
        parts = [
            f'<table class="nbayes-parameters" style="{_CSS_TABLE}"><thead><tr>'
            f'<th style="{_CSS_HEAD}"></th>'
            + "".join(f'<th style="{_CSS_HEAD}">{_e(c)}</th>' for c in self.classes)
            + "</tr></thead><tbody>"
        ]
        for kind, what, cells in self._rows(max_rows):
            if kind == "head":
                parts.append(
                    f'<tr><th colspan="{n + 1}" style="{_CSS_NAME};color:#5d6773;'
                    f'padding-top:8px">{_e(what.symbol)}</th></tr>'
                )
            elif kind == "more":
                parts.append(
                    f'<tr><td colspan="{n + 1}" style="{_CSS_NAME};color:#5d6773">'
                    f"{_e(what)}</td></tr>"
                )
            else:
                assert cells is not None
                parts.append(
                    f'<tr><td style="{_CSS_NAME}">{_e(what)}</td>'
                    + "".join(f'<td style="{_CSS_CELL}">{self._html_cell(v)}</td>' for v in cells)
                    + "</tr>"
                )
        parts.append("</tbody></table>")
        return "".join(parts)

    def _repr_html_(self) -> str:
        return self.to_html(SHOWN_ROWS)

    def to_pandas(self) -> Any:
        """Every parameter as a DataFrame: index (parameter, feature), one column per
        class; exact values as :class:`~fractions.Fraction` (reduced: the text, Markdown,
        LaTeX and HTML forms show them unreduced), else floats."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - pandas is a dependency of [test]
            raise ImportError(
                "ParameterTable.to_pandas requires pandas: pip install pandas"
            ) from exc
        index, rows = [], []
        for i, b in enumerate(self.blocks):
            for r in self._rows_of(i):
                index.append((b.symbol, "" if b.features[r] < 0 else self._row_name(b, r)))
                cells = [self.cell(b, c, r) for c in range(len(self.classes))]
                rows.append([v.value if isinstance(v, Estimate) else v for v in cells])
        return pd.DataFrame(
            rows,
            index=pd.MultiIndex.from_tuples(index, names=["parameter", "feature"]),
            columns=pd.Index(self.classes, name="class"),
            dtype=object if self.exact else np.float64,
        )


def _plain(x: Any) -> Any:
    """A numpy scalar as the Python value it holds (np.str_('a') -> 'a')."""
    return x.item() if isinstance(x, np.generic) else x


# ------------------------------------------------------------ small results
class TopPredictions(NamedTuple):
    """``predict_top``'s answer: it unpacks as ``labels, probabilities = ...`` (arrays of
    shape (n_samples, n)) and shows as a table in a notebook."""

    labels: np.ndarray
    probabilities: np.ndarray

    def named(self, documents: Sequence[str]) -> TopPredictions:
        """The same answer, its rows shown by the documents' first words (not 0, 1, 2)."""
        out = _DocumentTop(self.labels, self.probabilities)
        out.documents = list(documents)
        return out

    def _row_head(self) -> str:
        return "row"

    def _row_name(self, i: int) -> str:
        return str(i)

    def _table(self, max_rows: int = SHOWN_ROWS) -> list[list[str]]:
        n = self.labels.shape[1] if self.labels.ndim == 2 else 0
        rows = [[self._row_head(), *(f"#{k + 1}" for k in range(n))]]
        for i in range(min(len(self.labels), max_rows)):
            rows.append([self._row_name(i), *(
                f"{_plain(c)} ({float(p):.3g})"
                for c, p in zip(self.labels[i], self.probabilities[i], strict=True)
            )])  # fmt: skip
        return rows

    def __str__(self) -> str:
        rows = self._table(len(self.labels))
        width = [max(text_width(r[i]) for r in rows) for i in range(len(rows[0]))]
        return "\n".join(
            "  ".join(_pad(x, w) for x, w in zip(r, width, strict=True)).rstrip() for r in rows
        )

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))

    def _repr_html_(self) -> str:
        rows = self._table()
        more = len(self.labels) - (len(rows) - 1)
        out = [
            f'<table style="{_CSS_TABLE}"><tr>',
            f'<th style="{_CSS_HEAD}">{_e(rows[0][0])}</th>',
        ]
        # each rank's label, bar and number in cells of their own, under one heading: in
        # one right-aligned cell, "spam" and "ham" put their bars at different places (a
        # trial's finding)
        out += [f'<th colspan="3" style="{_CSS_HEAD}">{_e(h)}</th>' for h in rows[0][1:]]
        out.append("</tr>")
        tight = "padding:3px 4px;border-bottom:1px solid #edf0f3"
        for i in range(len(rows) - 1):
            out.append(f'<tr><td style="{_CSS_NAME}">{_e(rows[i + 1][0])}</td>')
            for c, p in zip(self.labels[i], self.probabilities[i], strict=True):
                out.append(
                    f'<td style="{_CSS_NAME}">{_e(_plain(c))}</td>'
                    f'<td style="{tight}">{_bar(float(p), 1.0, FOR_RGB)}</td>'
                    f'<td style="{_CSS_CELL}">{float(p):.3g}</td>'
                )
            out.append("</tr>")
        if more > 0:
            span = 1 + 3 * (len(rows[0]) - 1)
            out.append(f'<tr><td colspan="{span}">… {more:,} more rows</td></tr>')
        return "".join(out) + "</table>"


class _DocumentTop(TopPredictions):
    """A :class:`TopPredictions` of documents: each row shown by its first words."""

    documents: list[str]

    def _row_head(self) -> str:
        return "document"

    def _row_name(self, i: int) -> str:
        text = " ".join(self.documents[i].split())
        return text if len(text) <= 40 else text[:39] + "…"


class InformativeFeatures(list[tuple[str, Any, float]]):
    """``most_informative_features``' answer: a list of ``(feature, class, score)`` with
    plain Python values, that shows as a table in a notebook."""

    def _lines(self) -> list[list[str]]:
        return [["feature", "class", "score"]] + [[str(f), str(c), f"{s:.3f}"] for f, c, s in self]

    def __str__(self) -> str:
        rows = self._lines()
        width = [max(text_width(r[i]) for r in rows) for i in range(3)]
        return "\n".join(
            f"{_pad(r[0], width[0])}  {_pad(r[1], width[1])}  {_pad(r[2], width[2], True)}"
            for r in rows
        )

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))

    def _repr_html_(self) -> str:
        finite = [abs(s) for _, _, s in self if math.isfinite(s)]
        scale = max(finite, default=1.0) or 1.0
        out = [
            f'<table style="{_CSS_TABLE}"><tr><th style="{_CSS_HEAD}">feature</th>'
            f'<th style="{_CSS_HEAD}">class</th><th style="{_CSS_HEAD}">score</th></tr>'
        ]
        for f, c, s in self[:SHOWN_ROWS]:
            bar = _bar(abs(s) if math.isfinite(s) else scale, scale, FOR_RGB)
            out.append(
                f'<tr><td style="{_CSS_NAME}">{_e(f)}</td><td style="{_CSS_NAME}">{_e(c)}</td>'
                f'<td style="{_CSS_CELL}">{bar} {s:.3f}</td></tr>'
            )
        if len(self) > SHOWN_ROWS:
            out.append(f'<tr><td colspan="3">… {len(self) - SHOWN_ROWS:,} more</td></tr>')
        return "".join(out) + "</table>"


class Summary(str):
    """A text summary (``MixedNB.summary()``) that shows as lines, not as one quoted
    line with ``\\n``, and as an HTML table (``rows``: the header, then one per column)."""

    rows: list[tuple[str, ...]]
    heading: str

    def __new__(
        cls, text: str, heading: str = "", rows: Sequence[tuple[str, ...]] | None = None
    ) -> Summary:
        out = super().__new__(cls, text)
        out.heading = heading
        out.rows = list(rows or [])
        return out

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))

    def _repr_html_(self) -> str:
        if not self.rows:
            return f"<pre>{_e(self)}</pre>"
        head, *body = self.rows
        out = [f'<p>{_e(self.heading)}</p><table style="{_CSS_TABLE}"><tr>']
        out += [f'<th style="{_CSS_HEAD};text-align:left">{_e(h)}</th>' for h in head]
        out.append("</tr>")
        for r in body:
            out.append("<tr>" + "".join(f'<td style="{_CSS_NAME}">{_e(x)}</td>' for x in r))
            out.append("</tr>")
        return "".join(out) + "</table>"


# ---------------------------------------------------------------- explanations
def _bar(value: float, scale: float, rgb: str, width: int = 90) -> str:
    """A bar as long as ``|value| / scale``; an infinite value (a word no document of a
    class had: it decides alone) fills it, striped, where it was drawn empty."""
    if math.isinf(value):
        frac, title = 1.0, ' title="infinite: this evidence decides alone"'
        fill = f"repeating-linear-gradient(135deg,rgb({rgb}) 0 4px,rgba({rgb},0.35) 4px 8px)"
    else:  # (NaN: an empty bar)
        frac = 0.0 if not scale or math.isnan(value) else min(abs(value) / scale, 1.0)
        fill, title = f"rgb({rgb})", ""
    return (
        f'<span{title} style="display:inline-block;width:{width}px;height:10px;'
        'background:#edf0f3;border-radius:3px;vertical-align:middle;overflow:hidden">'
        f'<span style="display:block;height:100%;width:{frac * 100:.1f}%;background:{fill}">'
        "</span></span>"
    )


def _factors_tex(factors: list[Any], names: Sequence[str]) -> str:
    r"""The factors joined by ``\cdot``, each labelled underneath with its feature's name
    (folded in the middle when there are many, as the text derivation is)."""
    from .explain import MAX_FACTORS

    def one(f: Any) -> str:
        tex = estimate_tex(f)
        if getattr(f, "feature", None) is None:
            return tex
        return rf"\underset{{\scriptscriptstyle {_tex_text(names[f.feature])}}}{{{tex}}}"

    if len(factors) > MAX_FACTORS:
        hidden = len(factors) - (MAX_FACTORS - 2)
        head, tail = factors[: MAX_FACTORS - 4], factors[-2:]
        middle = rf"\cdots \text{{({hidden:,} more factors)}} \cdots"
        return r" \cdot ".join([*map(one, head), middle, *map(one, tail)])
    return r" \cdot ".join(one(f) for f in factors)


def _factors_html(factors: list[Any], names: Sequence[str], result: str = "") -> str:
    """The factors of a product, each with its feature's name under it, then ``result``
    (``= <b>32/3645</b> ≈ 0.00878``). A narrow page wraps the line between factors only:
    each factor keeps its "·", and the last one the result (a teacher's trial saw lines
    end in a dangling "=", the result alone on the next); a name "composed = 0" is
    written on two lines under its factor, which it would otherwise widen."""
    from .explain import MAX_FACTORS

    def one(f: Any) -> str:
        html_ = estimate_html(f)
        if getattr(f, "feature", None) is None:
            return html_
        name = _e(names[f.feature]).replace(" = ", "<br>= ", 1)
        return (
            '<span style="display:inline-flex;flex-direction:column;align-items:center;'
            f'vertical-align:top">{html_}<span style="font-size:10px;color:#5d6773;'
            f'line-height:1.15;text-align:center">{name}</span></span>'
        )

    if len(factors) > MAX_FACTORS:
        hidden = len(factors) - (MAX_FACTORS - 2)
        head, tail = factors[: MAX_FACTORS - 4], factors[-2:]
        units = [*map(one, head), f"… ({hidden:,} more factors) …", *map(one, tail)]
    else:
        units = [one(f) for f in factors]
    units = [u if i == 0 else f"· {u}" for i, u in enumerate(units)]
    units[-1] += result
    return " ".join(f'<span style="white-space:nowrap">{u}</span>' for u in units)


def _joint_parts(e: Explanation) -> list[tuple[Any, list[Any], Any]]:
    assert e.prior_factors is not None and e.factors is not None and e.exact_joint is not None
    joints = list(e.exact_joint.values())
    return [
        (cls, [prior, *e.shown_row(row)], joint)
        for cls, prior, row, joint in zip(
            e.classes.tolist(), e.prior_factors, e.factors, joints, strict=True
        )
    ]


def _value_tex(p: Any) -> str:
    """An exact product's value: ``\\frac{32}{3645} \\approx 0.00878``, ``0``, or its value
    shortened (long fractions: from its factors, without building it)."""
    from .explain import format_fraction, show_product

    if p.zero:
        return "0"
    if p.short(SHOWN_DIGITS):
        q = p.value
        approx = format_fraction(q).replace("≈", r"\approx")
        return rational_tex(q) if q.denominator == 1 else f"{rational_tex(q)} {approx}"
    value, _, size = show_product(p, SHOWN_DIGITS).partition(" (")
    return rf"\approx {_sci_tex(value)}\ \text{{({_e_tex(size)}}}"


def _value_html(p: Any) -> str:
    from .explain import format_fraction, show_product

    if p.zero:
        return "0"
    if p.short(SHOWN_DIGITS):
        q = p.value
        shown = rational_html(q)
        return shown if q.denominator == 1 else f"{shown} {format_fraction(q)}"
    return _e("≈ " + show_product(p, SHOWN_DIGITS))


def _posterior_shown(e: Explanation) -> list[tuple[Any, Fraction | None, str]]:
    """(class, exact posterior when short, its value as text)."""
    from .explain import format_fraction

    shown = e.shown_posterior(SHOWN_DIGITS)
    assert shown is not None
    out = []
    post = e.posterior if e._posterior_reducible() else None
    for cls, text in shown.items():
        q = None if post is None else post[cls]
        if q is not None and _short(q):
            out.append((cls, q, format_fraction(q) if q.denominator != 1 else ""))
        else:
            out.append((cls, None, text))
    return out


_CANNOT = (
    "Every class has probability 0: the classifier cannot decide "
    "(a zero count wiped out every product; smoothing, alpha > 0, avoids this)."
)
_FALLBACK = "predict() falls back to the class of the highest prior: "


def explanation_latex(e: Explanation) -> str:
    """The exact derivation in LaTeX (display math): one line per class,
    ``P(y)\\,P(\\mathbf{x} \\mid y) = \\frac{3}{5} \\cdot \\frac{2}{3} \\cdots``, then the
    posterior and the decision, or that the classifier cannot decide."""
    if not e.exact:
        raise ValueError("This explanation is not exact: call explain(x, exact=True).")
    lines = []
    labels = e.factor_labels()
    for cls, factors, joint in _joint_parts(e):
        c = _tex_text(cls)
        product = _factors_tex(factors, labels)
        value = _value_tex(joint)
        rel = "" if value.startswith(r"\approx") else "= "
        lines.append(rf"P({c})\,P(\mathbf{{x}} \mid {c}) &= {product} {rel}{value}")
    if e.undecidable:
        lines.append(r"&\text{Every class has probability 0: the classifier cannot decide.}")
        lines.append(
            r"&\text{(A zero count wiped out every product; smoothing, }\alpha > 0"
            r"\text{, avoids this.)}"
        )
        lines.append(rf"&\text{{{_FALLBACK}}}{_tex_text(e.fallback)}")
    else:
        for cls, q, text in _posterior_shown(e):
            c = _tex_text(cls)
            if q is not None:
                approx = text.replace("≈", r"\approx")
                lines.append(rf"P({c} \mid \mathbf{{x}}) &= {rational_tex(q)} {approx}")
            else:
                value, _, rest = text.partition(" (")
                more = rf"\ {_tex_text('(' + rest)}" if rest else ""
                lines.append(rf"P({c} \mid \mathbf{{x}}) &\approx {_sci_tex(value)}{more}")
        note = e.tie_note()
        tie = _tex_text(note) if note else ""
        lines.append(rf"&\text{{Decision: }} {_tex_text(e.prediction)}{tie}")
    return "$$\n\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}\n$$"


def explanation_markdown(e: Explanation, top: int = 5) -> str:
    """The explanation in Markdown: the exact derivation as display math, else a table
    of the strongest features for and against each class."""
    if e.exact:
        head = (
            f"**Cannot decide.** {_md(_FALLBACK)}{_md(e.fallback)}"
            if e.undecidable
            else f"**Decision: {_md(e.prediction)}**{_md(e.tie_note())}"
        )
        return f"{head}\n\n{explanation_latex(e)}"
    post = e.posterior
    if post is None:
        lines = ["**Every class has zero likelihood: the classifier cannot decide.**", ""]
    else:
        best = e.prediction
        lines = [f"**Prediction: {_md(best)}** (P = {post[best]:.3g})", ""]
    lines += ["| class | feature | evidence |", "|---|---|---|"]
    for cls, ev in e.top(top).items():
        label = e.labels(n for side in ("for", "against") for n, _ in ev[side])
        for side in ("for", "against"):
            for name, v in ev[side]:
                lines.append(f"| {side} {_md(cls)} | {_md(label[name])} | {v:+.3g} |")
    return "\n".join(lines)


def explanation_html(e: Explanation, top: int = 8) -> str:
    """The explanation in HTML: the exact derivation (fractions stacked, no MathJax
    needed), or the posterior and the strongest features for and against the predicted
    class with bars; a document's words highlighted by their evidence as the service's
    page does."""
    style = "font-family:system-ui,sans-serif;font-size:14px;color:#1d232b;line-height:1.6"
    parts = [f'<div class="nbayes-explanation" style="{style}">']
    if e.exact:
        parts.append(_exact_html(e))
    else:
        parts.append(_evidence_html(e, top))
    if e.document is not None:
        parts.append(_words_html(e))
    parts.append("</div>")
    return "".join(parts)


#: a grid of (label, value) rows: no <table>, which notebooks' style sheets stripe and pad
_GRID_COLUMNS = "display:grid;grid-template-columns:max-content auto;gap:6px 10px"
_GRID = f"{_GRID_COLUMNS};align-items:center"


def _exact_html(e: Explanation) -> str:
    # (each class's label level with the first line of its factors when they wrap)
    out = [f'<div style="{_GRID_COLUMNS};align-items:baseline">']
    labels = e.factor_labels()
    for cls, factors, joint in _joint_parts(e):
        value = _value_html(joint)
        result = f" {'' if value.startswith('≈') else '= '}<b>{value}</b>"
        out.append(
            f'<div style="white-space:nowrap">P({_e(cls)}) · P(<b>x</b> | {_e(cls)})</div>'
            f"<div>= {_factors_html(factors, labels, result)}</div>"
        )
    out.append("</div>")
    if e.undecidable:
        out.append(f'<p style="color:rgb({AGAINST_RGB});font-weight:600">{_e(_CANNOT)}</p>')
        out.append(f"<p>{_e(_FALLBACK)}<b>{_e(e.fallback)}</b></p>")
        return "".join(out)
    out.append(f'<div style="{_GRID};margin-top:8px">')
    for cls, q, text in _posterior_shown(e):
        value = f"= {rational_html(q)} {_e(text)}" if q is not None else _e("≈ " + text)
        p = float(q) if q is not None else (e.posterior_floats() or {}).get(cls, 0.0)
        rgb = FOR_RGB if cls == e.prediction else OTHER_RGB  # (the float view's colours)
        out.append(
            f"<div>P({_e(cls)} | <b>x</b>)</div><div>{value} &nbsp;{_bar(p, 1.0, rgb)}</div>"
        )
    out.append(f"</div><p><b>Decision: {_e(e.prediction)}</b>{_e(e.tie_note())}</p>")
    return "".join(out)


def _evidence_html(e: Explanation, top: int) -> str:
    post = e.posterior
    out = []
    if post is None:
        focus = e.fallback
        out.append(
            f'<p style="color:rgb({AGAINST_RGB});font-weight:600">Every class has zero '
            "likelihood: the classifier cannot decide.</p>"
            f"<p>{_e(_FALLBACK)}<b>{_e(focus)}</b>; the evidence for and against it:</p>"
        )
    else:
        focus = e.prediction
        out.append(f"<p><b>Prediction: {_e(focus)}</b> (P = {post[focus]:.3g})</p>")
        out.append('<table style="border-collapse:collapse;margin-bottom:6px">')
        for cls, p in post.items():
            rgb = FOR_RGB if cls == focus else OTHER_RGB
            out.append(
                f'<tr><td style="padding:2px 8px 2px 0">{_e(cls)}</td><td>{_bar(p, 1.0, rgb, 160)}'
                f'</td><td style="padding-left:8px;text-align:right">{p:.3g}</td></tr>'
            )
        out.append("</table>")
    ev = e.top(top, classes=[focus])[focus]
    rows = [(n, v) for n, v in ev["for"]] + [(n, v) for n, v in ev["against"]]
    scale = max((abs(v) for _, v in rows if math.isfinite(v)), default=1.0) or 1.0
    if len(e.classes) == 2:
        what = f"evidence for {_e(focus)} (log-likelihood ratio)"
    elif len(e.classes) > 2:  # (not a ratio of two: a student's second trial)
        what = f"evidence for {_e(focus)} (log-likelihood minus the other classes' mean)"
    else:
        what = "terms (log-likelihood)"
    out.append(
        f'<table style="{_CSS_TABLE}"><tr><th style="{_CSS_HEAD};text-align:left">feature</th>'
        f'<th style="{_CSS_HEAD};text-align:left">{what}</th><th style="{_CSS_HEAD}"></th></tr>'
    )
    label = e.labels(n for n, _ in rows)
    for name, v in rows:
        rgb = FOR_RGB if v > 0 else AGAINST_RGB
        out.append(
            f'<tr><td style="{_CSS_NAME}">{_e(label[name])}</td><td style="{_CSS_NAME}">'
            f'{_bar(v, scale, rgb, 160)}</td><td style="{_CSS_CELL}">{v:+.3g}</td></tr>'
        )
    out.append("</table>")
    if e.readings is not None:  # the densities the notes print, N(3 | μ = 2, σ² = 1) = 0.242
        classes = e.classes.tolist()
        head = "".join(
            f'<th style="{_CSS_HEAD};text-align:left">P(x_j | {_e(c)})</th>' for c in classes
        )
        out.append(
            f'<table style="{_CSS_TABLE}"><tr><th style="{_CSS_HEAD};text-align:left">feature'
            f"</th>{head}</tr>"
        )
        for j, name in enumerate(e.feature_names):
            cells = "".join(f'<td style="{_CSS_NAME}">{_e(row[j])}</td>' for row in e.readings)
            out.append(f'<tr><td style="{_CSS_NAME}">{_e(name)}</td>{cells}</tr>')
        out.append("</table>")
    return "".join(out)


_WORD = re.compile(r"[^\W_]{2,}|\w{2,}")
#: Words of a document coloured in its HTML view (the rest is summarised, as the command
#: line's ``explain --top`` bounds its words line)
SHOWN_WORDS = 2000


def _words_html(e: Explanation) -> str:
    """The document, each word it shares with the model coloured by its evidence for the
    predicted class (green for, red against, grey unknown), as the service's page does;
    the first ``SHOWN_WORDS`` words (each distinct word's span made once)."""
    text = e.document or ""
    focus = e.fallback  # (the class predict() returns, also when it cannot decide)
    matches: list[re.Match[str]] = []
    for m in _WORD.finditer(text):
        if len(matches) == SHOWN_WORDS:
            break
        matches.append(m)
    cut = matches[-1].end() if len(matches) == SHOWN_WORDS else len(text)
    words = {m.group(0) for m in matches}
    keys = {w: w.lower() if e.lowercase else w for w in words}
    index = e.feature_index(keys.values())
    row = e.classes.tolist().index(focus)
    values = e.evidence(list(index.values()))[row].tolist() if index else []
    evidence = dict(zip(index, values, strict=True))
    scale = max([1.0, *(abs(v) for v in values if math.isfinite(v))])
    spans: dict[str, str] = {}
    for word, key in keys.items():
        if key not in evidence:
            spans[word] = (
                f'<span style="color:#9aa3ad" title="unknown to the model">{_e(word)}</span>'
            )
            continue
        v = evidence[key]
        a = min(abs(v) / scale, 1.0) * 0.6 + 0.08 if v else 0.0
        rgb = FOR_RGB if v > 0 else AGAINST_RGB
        bg = f"background:rgba({rgb},{a:.3f});" if v else ""
        spans[word] = (
            f'<span style="{bg}padding:1px 3px;border-radius:4px" '
            f'title="{_e(key)}: {v:+.3f} for {_e(focus)}">{_e(word)}</span>'
        )
    out, last = [], 0
    for m in matches:
        out.append(_e(text[last : m.start()]))
        out.append(spans[m.group(0)])
        last = m.end()
    out.append(_e(text[last:cut]))
    if cut < len(text):
        more = sum(1 for _ in _WORD.finditer(text, cut))
        out.append(f'<span style="color:#5d6773"> … ({more:,} more words)</span>')
    legend = (
        f'<div style="font-size:12px;color:#5d6773">'
        f'<span style="background:rgba({FOR_RGB},.55);padding:0 6px;border-radius:3px">for '
        f'{_e(focus)}</span> <span style="background:rgba({AGAINST_RGB},.55);padding:0 6px;'
        f'border-radius:3px">against {_e(focus)}</span> <span style="color:#9aa3ad">unknown to '
        "the model</span></div>"
    )
    return (
        '<div style="line-height:2.1;margin-top:8px;white-space:pre-wrap;word-wrap:break-word">'
        + "".join(out)
        + "</div>"
        + legend
        + _absent_html(e, focus)
    )


def _absent_html(e: Explanation, focus: Any, most: int = 5) -> str:
    """The strongest evidence of words the document lacks, which its coloured words cannot
    show (a model of presence and absence, Bernoulli): "match was sharp" is positive by the
    absent "not" (+inf), its three words all against positive. Empty for other models."""
    ev = e.top(most, classes=[focus])[focus]
    pairs = ev["for"] + ev["against"]
    lacks = e.absent(n for n, _ in pairs)
    absent = [(n, v) for n, v in pairs if n in lacks and v]
    if not absent:
        return ""
    absent.sort(key=lambda nv: -abs(nv[1]))
    items = ", ".join(
        f'<span style="background:rgba({FOR_RGB if v > 0 else AGAINST_RGB},.35);padding:0 4px;'
        f'border-radius:3px">{_e(n)}</span> {v:+.3g}'
        for n, v in absent[:most]
    )
    return (
        f'<div style="font-size:13px;margin-top:4px">Words the document lacks weigh too, '
        f"for {_e(focus)}: {items}</div>"
    )
