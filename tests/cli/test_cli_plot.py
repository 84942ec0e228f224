"""``nbayes plot``: the most informative words, the reliability curve, and figures whose text
fits (the drawing itself is tested in tests/test_plot.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from .conftest import HAM, SPAM, assert_error, run, write_csv

pytest.importorskip("matplotlib")

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def sms_csv(tmp_path: Path) -> Path:
    rows = [[t, "spam"] for t in SPAM * 3] + [[t, "ham"] for t in HAM * 3]
    return write_csv(tmp_path / "sms.csv", ["text", "label"], rows)


@pytest.fixture
def text_model(tmp_path: Path, sms_csv: Path) -> Path:
    out = tmp_path / "a_rather_long_model_file_name_for_spam.nbayes"
    assert run_ok(["train", sms_csv, "-o", out, "-q"])
    return out


def run_ok(argv: list[Any]) -> bool:
    from nbayes.cli import main

    return main([str(a) for a in argv]) == 0


@pytest.fixture
def saved(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures ``nbayes plot`` saves, drawn as saved (for checking where text lies)."""
    from matplotlib.figure import Figure

    figures: list[Any] = []
    original = Figure.savefig

    def savefig(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        figures.append(self)

    monkeypatch.setattr(Figure, "savefig", savefig)
    return figures


def inside(fig: Any, text: Any) -> bool:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()  # the figure is closed: draw it again, as it was saved
    box = text.get_window_extent(fig.canvas.get_renderer())
    return bool(box.x0 >= 0 and box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height)


def test_plot_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path, saved: list[Any]
) -> None:
    png = tmp_path / "words.png"
    code, _, err = run(capsys, "plot", text_model, "--words", "--top", "3", "-o", png)
    assert code == 0 and "most informative words" in err
    assert png.read_bytes()[:8] == PNG
    (fig,) = saved
    axes = fig.axes
    assert [ax.get_title() for ax in axes] == ["ham", "spam"]
    spam_words = [t.get_text() for t in axes[1].get_yticklabels()]
    assert len(spam_words) == 3 and "win" in spam_words
    title = fig._suptitle
    assert inside(fig, title) and "3 most informative words" in " ".join(title.get_text().split())


def test_plot_confusion_title_fits(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path, sms_csv: Path,
    saved: list[Any],
) -> None:  # fmt: skip
    code, _, _ = run(capsys, "plot", text_model, "--confusion", sms_csv, "-o", tmp_path / "c.png")
    assert code == 0
    (fig,) = saved
    ax = fig.axes[0]
    assert inside(fig, ax.title)
    assert ax.title.get_text().split()[-2:] == ["(27", "examples)"]  # nothing cut
    dark = max(ax.texts, key=lambda t: int(t.get_text().replace(",", "")))
    assert dark.get_color() == "white"


def test_plot_reliability(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path, sms_csv: Path,
    saved: list[Any],
) -> None:  # fmt: skip
    from sklearn.calibration import calibration_curve

    from nbayes import load
    from nbayes.io.readers import read_texts

    svg = tmp_path / "r.svg"
    code, _, err = run(capsys, "plot", text_model, "--reliability", sms_csv, "--class", "spam",
                       "--bins", "4", "--strategy", "quantile", "-o", svg)  # fmt: skip
    assert code == 0 and "reliability curve" in err
    assert b"<svg" in svg.read_bytes()[:1000]
    (fig,) = saved
    (curve,) = [line for line in fig.axes[0].get_lines() if line.get_label() == "P(spam)"]
    model = load(text_model)
    texts, labels = [], []
    for chunk in read_texts([str(sms_csv)], "text", "label"):
        texts += chunk.texts
        labels += chunk.labels
    proba = model.predict_proba(texts)[:, list(model.classes_).index("spam")]
    frac, mean = calibration_curve(np.array(labels) == "spam", proba, n_bins=4,
                                   strategy="quantile")  # fmt: skip
    np.testing.assert_allclose(curve.get_xydata(), np.c_[mean, frac])


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--confusion", "DATA", "--top", "3"], "--top applies to --words only."),
        (["--words", "--bins", "3"], "--bins applies to --reliability only."),
        (["--words", "--strategy", "quantile"], "--strategy applies to --reliability only."),
        (["--words", "--class", "spam"], "--class applies to --reliability only."),
        (["--words", "--normalize"], "--normalize applies to --confusion only."),
        (["--reliability", "DATA", "--class", "eggs"], "--class 'eggs' is not a class"),
    ],
)
def test_plot_flag_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path, sms_csv: Path,
    argv: list[str], fragment: str,
) -> None:  # fmt: skip
    argv = [str(sms_csv) if a == "DATA" else a for a in argv]
    code, _, err = run(capsys, "plot", text_model, *argv, "-o", tmp_path / "x.png")
    assert_error(code, err, fragment)


def test_plot_words_of_other_models(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sms_csv: Path
) -> None:
    png = tmp_path / "x.png"
    hashed = tmp_path / "hashed.nbayes"
    assert run_ok(["train", sms_csv, "-o", hashed, "--hashing", "-q"])
    code, _, err = run(capsys, "plot", hashed, "--words", "-o", png)
    assert_error(code, err, "trained with --hashing")
    rows = [[f"{v:.1f}", f"{w:.1f}", "a" if v < 2 else "b"]
            for v, w in zip(np.linspace(0, 4, 12), np.linspace(1, 3, 12), strict=True)]  # fmt: skip
    table = write_csv(tmp_path / "t.csv", ["u", "v", "label"], rows)
    gauss = tmp_path / "g.nbayes"
    assert run_ok(["train", table, "-o", gauss, "--model", "gaussian", "-q"])
    code, _, err = run(capsys, "plot", gauss, "--words", "-o", png)
    assert_error(code, err, "Use --column NAME")
    rows = [["free games now" if i % 2 else "daily garden walk", "x" if i % 2 else "y",
             "young" if i % 2 else "old"] for i in range(10)]  # fmt: skip
    people = write_csv(tmp_path / "p.csv", ["note", "city", "label"], rows)
    mixed = tmp_path / "m.nbayes"
    assert run_ok(["train", people, "-o", mixed, "--model", "mixed", "--columns", "note=text",
                   "-q"])  # fmt: skip
    code, _, err = run(capsys, "plot", mixed, "--words", "-o", png)
    assert code == 0, err


def test_plot_says_the_file_it_writes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path
) -> None:
    """-o without an extension writes NAME.png and now says so (it said NAME); a folder is
    refused (it wrote a hidden DIR/.png, or DIR.png beside); --dpi 100000 ended in
    "std::bad_alloc (this is a bug in nbayes)" (a fuzz)."""
    code, _, err = run(capsys, "plot", text_model, "--words", "-o", tmp_path / "noext")
    assert code == 0 and f"to {tmp_path / 'noext.png'}" in err
    assert (tmp_path / "noext.png").stat().st_size > 0
    folder = tmp_path / "pictures"
    folder.mkdir()
    for given in (folder, f"{folder}/"):
        assert_error(*run(capsys, "plot", text_model, "--words", "-o", given)[::2], "is a folder")
    assert list(folder.iterdir()) == []
    code, _, err = run(capsys, "plot", text_model, "--words", "-o", tmp_path / "x.png",
                       "--dpi", "100000")  # fmt: skip
    assert code == 2 and "--dpi: must be <= 2400" in err
