"""How a message's :class:`~nbayes.spam.Clues` show: as lines of text (``nbayes explain``,
``print``, IPython's terminal), as Markdown and as HTML (a notebook's cell, IPython's
display protocol). Each form lists what the clues hold, and computes nothing of its own:
the verdict, how many clues were combined of how many tokens, what the bias of few clues
took off, the clues left out (bigrams of one phrase, tokens of the same counts), and the
combined clues, strongest first, each with its f(w), its ham and spam counts and its side.

Imports nothing heavy (``nbayes.spam`` is imported by ``nbayes filter``, without numpy).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nbayes.spam._filter import Clue, Clues

__all__ = ["clue_lines", "clue_row", "clues_html", "clues_markdown"]

#: Combined clues of each side a notebook shows (``clues.used()`` holds them all).
SHOWN_CLUES = 20

#: ANSI colours of the terminal's verdicts and sides
_ANSI = {"spam": "\033[31m", "ham": "\033[32m", "unsure": "\033[2m"}
#: the page's and the notebook's colours: spam red, ham green (as ``nbayes.display``'s
#: evidence against and for), unsure grey
_RGB = {"spam": "196, 43, 28", "ham": "22, 128, 61", "unsure": "93, 103, 115"}

Paint = Callable[[str, str], str]


def _plain(text: str, colour: str) -> str:
    return text


def _counted_once(clues: Clues) -> dict[tuple[int, int], int]:
    """Per (ham, spam) counts of a combined clue, the tokens of those very counts that
    were counted once with it (``same_counts_min``)."""
    repeats: dict[tuple[int, int], int] = {}
    for c in clues.clues:
        if c.side == "repeat":
            repeats[c.ham, c.spam] = repeats.get((c.ham, c.spam), 0) + 1
    return repeats


def _summary(clues: Clues) -> Iterator[str]:
    """The sentences under the verdict: the clues combined, the bias, the bigrams left out."""
    used = clues.used()
    n_spam = sum(c.side == "spam" for c in used)
    yield (
        f"{len(used)} clues combined ({n_spam} spam, {len(used) - n_spam} ham) of "
        f"{len(clues.clues)} tokens; f(w) is each token's spam probability (near 1: spam, "
        "near 0: ham)"
    )
    if clues.mean:
        yield clues.mean
    if clues.bias:
        yield (
            f"log-odds lowered by ham_bias / clues = {clues.bias * len(used):g} / {len(used)} "
            f"= {clues.bias:.2f} (a spam verdict on few clues needs them strong)"
        )
    if clues.young:
        yield clues.young
    overlaps = sum(c.side == "overlap" for c in clues.clues)
    if overlaps:
        yield (
            f"{overlaps} bigram{'s' if overlaps > 1 else ''} left out: each shares a word with "
            "a stronger bigram clue (one phrase counts once)"
        )


def _headline(clues: Clues) -> str:
    v = clues.verdict
    return f"(spamicity {v.spamicity:.6f}, log-odds {v.log_odds:.2f})"


def _sides(clues: Clues, top: int) -> Iterator[tuple[str, list[Clue], int]]:
    """Per side (spam, then ham): its combined clues shown (``top``: at most; 0: all),
    and how many it has."""
    used = clues.used()
    for side in ("spam", "ham"):
        rows = [c for c in used if c.side == side]
        if rows:
            yield side, (rows if top == 0 else rows[:top]), len(rows)


# ------------------------------------------------------------------ text
def clue_row(clue: Clue, f: str, more: str = "") -> str:
    """One clue as `nbayes explain` and `nbayes filter -v` list it: its f(w) (``f``, painted
    or not), its ham and spam counts, its token."""
    return f"  {f}  ham {clue.ham:>6,}  spam {clue.spam:>6,}  {clue.token}{more}"


def clue_lines(clues: Clues, top: int = 0, paint: Paint | None = None) -> Iterator[str]:
    """The explanation as lines of text: the verdict, :func:`_summary`, then the strongest
    clues of each side (``top``: at most; 0: all), ``paint(text, ansi_colour)`` colouring
    the verdict and each f(w) (``nbayes explain --color``; None: no colour)."""
    if isinstance(top, bool) or not isinstance(top, int) or top < 0:
        raise ValueError(f"top is how many clues of each side to show (0: all); got {top!r}")
    paint = paint or _plain
    v = clues.verdict
    yield f"{paint(v.verdict, _ANSI[v.verdict])} {_headline(clues)}"
    yield from _summary(clues)
    repeats = _counted_once(clues)
    for side, shown, n in _sides(clues, top):
        part = "" if len(shown) == n else f" ({len(shown)} of {n})"
        yield f"strongest {side} clues{part}:"
        for c in shown:
            k = repeats.get((c.ham, c.spam), 0)
            more = f"  (and {k} more of these counts, counted once)" if k else ""
            yield clue_row(c, paint(f"{c.f:.4f}", _ANSI[side]), more)


# ------------------------------------------------------------------ Markdown
def _md(text: str) -> str:
    return text.replace("|", r"\|").replace("\n", " ")


def clues_markdown(clues: Clues, top: int = SHOWN_CLUES) -> str:
    """The explanation in Markdown: the verdict, the sentences, a table per side."""
    v = clues.verdict
    out = [f"**{v.verdict}** {_headline(clues)}", ""]
    out += [f"{line}  " for line in _summary(clues)]
    repeats = _counted_once(clues)
    for side, shown, n in _sides(clues, top):
        part = "" if len(shown) == n else f" ({len(shown)} of {n})"
        out += ["", f"strongest {side} clues{part}:", "", "| token | f(w) | ham | spam |"]
        out.append("|---|---:|---:|---:|")
        for c in shown:
            k = repeats.get((c.ham, c.spam), 0)
            more = f" (and {k} more of these counts)" if k else ""
            out.append(f"| `{_md(c.token)}`{more} | {c.f:.4f} | {c.ham:,} | {c.spam:,} |")
    return "\n".join(out)


# ------------------------------------------------------------------ HTML
_TABLE = "border-collapse:collapse;font-size:13px;margin:4px 0"
_HEAD = "padding:3px 8px;border-bottom:1px solid #d8dde3;color:#5d6773;text-align:right"
_CELL = "padding:3px 8px;border-bottom:1px solid #edf0f3;text-align:right"
_NAME = "padding:3px 8px;border-bottom:1px solid #edf0f3;text-align:left"


def _bar(clue: Clue, side: str) -> str:
    """A bar as long as the clue's distance from 1/2 (the whole width: f = 0 or 1)."""
    width = round(abs(clue.f - 0.5) * 2 * 80)
    return (
        f'<span style="display:inline-block;width:{width}px;height:9px;'
        f'background:rgb({_RGB[side]})"></span>'
    )


def clues_html(clues: Clues, top: int = SHOWN_CLUES) -> str:
    """The explanation in HTML: the verdict in its colour, the sentences, and the combined
    clues of each side as a table (token, f(w) and a bar of its strength, ham and spam
    counts), strongest first."""
    e = html.escape
    v = clues.verdict
    out = [
        '<div style="font-family:sans-serif;font-size:13px">',
        f'<div style="font-size:15px"><b style="color:rgb({_RGB[v.verdict]})">'
        f"{e(v.verdict)}</b> {e(_headline(clues))}</div>",
    ]
    out += [f'<div style="color:#5d6773">{e(line)}</div>' for line in _summary(clues)]
    repeats = _counted_once(clues)
    for side, shown, n in _sides(clues, top):
        part = "" if len(shown) == n else f" ({len(shown)} of {n}; <code>clues.used()</code>: all)"
        out.append(f'<div style="margin-top:6px">strongest {side} clues{part}:</div>')
        out.append(f'<table style="{_TABLE}"><tr>')
        out.append(f'<th style="{_HEAD};text-align:left">token</th>')
        for head in ("f(w)", "", "ham", "spam"):
            out.append(f'<th style="{_HEAD}">{head}</th>')
        out.append("</tr>")
        for c in shown:
            k = repeats.get((c.ham, c.spam), 0)
            more = f' <span style="color:#5d6773">(and {k} more of these counts)</span>'
            out.append(
                f'<tr><td style="{_NAME}"><code>{e(c.token)}</code>{more if k else ""}</td>'
                f'<td style="{_CELL}">{c.f:.4f}</td><td style="{_NAME}">{_bar(c, side)}</td>'
                f'<td style="{_CELL}">{c.ham:,}</td><td style="{_CELL}">{c.spam:,}</td></tr>'
            )
        out.append("</table>")
    out.append("</div>")
    return "".join(out)
