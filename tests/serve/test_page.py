"""The page at ``GET /`` in a real browser: Debian's chromium, headless, driven by
Playwright for Python (never ``playwright install``: the browser is the system's).

Set NBAYES_SCREENSHOTS=DIR to keep the screenshots (default: the test's tmp_path).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import nbayes

CHROMIUM = os.environ.get("NBAYES_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip

if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
    if os.environ.get("NBAYES_REQUIRE_BROWSER"):  # .ci/run installs it: a skip would hide a gap
        raise RuntimeError(f"no chromium at {CHROMIUM}, and NBAYES_REQUIRE_BROWSER is set")
    pytest.skip(
        f"no chromium at {CHROMIUM} (Debian: apt-get install chromium)", allow_module_level=True
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)"
)

SPAM = "WINNER!! You have won a FREE prize of 1000 cash. Call 09061701461 now to claim, zyxwv"


@pytest.fixture
def browser() -> Any:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def _shots(tmp_path: Path) -> Path:
    where = Path(os.environ.get("NBAYES_SCREENSHOTS", tmp_path))
    where.mkdir(parents=True, exist_ok=True)
    return where


def _open(browser: Any, server: Any, height: int) -> tuple[Any, list[str]]:
    """The server's page in a new tab 1200 px wide, and the script errors it raises."""
    page = browser.new_page(viewport={"width": 1200, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"http://127.0.0.1:{server.port}/")
    return page, errors


def test_the_page_explains_a_pasted_text(
    text_model: str, start: Any, browser: Any, tmp_path: Path
) -> None:
    server = start(text_model)
    model = nbayes.load(text_model)
    page, errors = _open(browser, server, height=860)
    sync_api.expect(page.locator("#meta")).to_contain_text("spam.nbayes")
    sync_api.expect(page.locator("#meta")).to_contain_text("TextClassifier")
    # paste: the text arrives through a paste event's clipboard data
    page.locator("#text").focus()
    page.evaluate(
        """text => {
            const area = document.getElementById("text");
            const data = new DataTransfer();
            data.setData("text/plain", text);
            const ev = new ClipboardEvent("paste", {clipboardData: data, bubbles: true});
            if (area.dispatchEvent(ev)) {  // not cancelled: insert as the browser would
                area.value = text;
                area.dispatchEvent(new Event("input", {bubbles: true}));
            }
        }""",
        SPAM,
    )
    page.locator("#classify").click()
    label = page.locator("#label")
    sync_api.expect(label).to_have_text(model.predict([SPAM])[0])
    assert label.inner_text() == "spam"
    # the top classes with their probabilities
    bars = page.locator(".bar")
    assert bars.count() == 2
    p_spam = model.predict_proba([SPAM])[0][1]
    assert bars.nth(0).get_attribute("data-cls") == "spam"
    assert bars.nth(0).locator(".p").inner_text() == (
        "> 99.99%" if 0.9999 < p_spam < 1 else f"{100 * p_spam:.2f}%"
    )
    p_ham = model.predict_proba([SPAM])[0][0]
    assert bars.nth(1).locator(".p").inner_text() == f"{p_ham:.1e}".replace("e-0", "e-")
    assert "probability" in page.locator("#label-p").inner_text()
    # the words coloured by their evidence: for (green), against (red), unknown (grey)
    exp = model.explain(SPAM)
    for_spam = dict(exp.top(50)["spam"]["for"])
    words = page.locator("#words .w")
    assert words.count() >= 10
    prize = page.locator("#words .w", has_text="prize").first
    assert "for" in prize.get_attribute("class")
    assert float(prize.get_attribute("data-evidence")) == pytest.approx(for_spam["prize"])
    assert "rgba(22, 128, 61" in prize.evaluate("e => getComputedStyle(e).backgroundColor")
    assert "unknown" in page.locator("#words .w", has_text="zyxwv").get_attribute("class")
    against = page.locator("#words .w.against")
    assert against.count() >= 1
    assert "rgba(196, 43, 28" in against.first.evaluate("e => getComputedStyle(e).backgroundColor")
    # the exact derivation on request
    sync_api.expect(page.locator("#derivation")).to_be_hidden()
    page.locator("#derive").click()
    derivation = page.locator("#derivation-text")
    sync_api.expect(derivation).to_contain_text("P(spam) · P(x | spam) =")
    assert derivation.inner_text().strip() == model.explain(SPAM, exact=True).derivation()
    page.wait_for_timeout(500)  # the page's own re-classification after typing has passed
    sync_api.expect(derivation).to_be_visible()
    page.screenshot(path=str(_shots(tmp_path) / "page-text.png"), full_page=True)
    # a dropped text file is read and classified
    page.evaluate(
        """() => {
            const data = new DataTransfer();
            data.items.add(new File(["see you at lunch tomorrow at noon"], "note.txt",
                                    {type: "text/plain"}));
            document.getElementById("text").dispatchEvent(
                new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true}));
        }"""
    )
    sync_api.expect(label).to_have_text(model.predict(["see you at lunch tomorrow at noon"])[0])
    assert page.locator("#text").input_value() == "see you at lunch tomorrow at noon"
    assert not errors


REVIEWS = (
    ["keeper was sharp and composed", "match was composed", "brilliant match",
     "match was not sharp", "match was not composed"],
    ["positive", "positive", "positive", "negative", "negative"],
)  # fmt: skip


def _reviews(tmp_path: Path, name: str, **params: Any) -> tuple[str, Any]:
    path = str(tmp_path / f"{name}.nbayes")
    model = nbayes.TextClassifier(**params).fit(*REVIEWS)
    nbayes.save(model, path)
    return path, model


def _explain_on_page(page: Any, text: str) -> None:
    page.locator("#text").fill(text)
    page.locator("#classify").click()


def _inside_the_card(page: Any) -> None:
    """The absent words wrap inside their card (each word with its value)."""
    sizes = page.evaluate(
        """() => ({doc: document.documentElement.scrollWidth, win: window.innerWidth,
                   words: Math.max(...[...document.querySelectorAll("#absent-words .item")]
                                   .map(e => e.getBoundingClientRect().right)),
                   card: document.getElementById("result").getBoundingClientRect().right})"""
    )
    assert sizes["doc"] <= sizes["win"] and sizes["words"] <= sizes["card"] - 10, sizes


def test_the_page_shows_the_absent_words_of_a_bernoulli_model(
    start: Any, browser: Any, tmp_path: Path
) -> None:
    """A Bernoulli model weighs the words a text lacks: "match was sharp" is positive by
    the absent "not" (+inf with alpha=0), its own three words all against positive. The
    page showed the text's words only; it now lists the strongest absent words, coloured
    as the text's words are, outlined, with their evidence. A multinomial model's
    evidence is of the text's words only: no such list."""
    path, model = _reviews(tmp_path, "reviews", model="bernoulli", alpha=0.0)
    page, errors = _open(browser, start(path), height=700)
    sync_api.expect(page.locator("#meta")).to_contain_text("(bernoulli)")
    _explain_on_page(page, "match was sharp")
    sync_api.expect(page.locator("#label")).to_have_text("positive")
    words = page.locator("#words .w")
    assert [w.inner_text() for w in words.all()] == ["match", "was", "sharp"]
    assert all("against" in (w.get_attribute("class") or "") for w in words.all())
    box = page.locator("#absent")
    sync_api.expect(box).to_be_visible()
    assert box.locator(".title").inner_text().startswith("Absent words: the text lacks them")
    assert "for and against positive" in box.locator(".title").inner_text()
    absent = page.locator("#absent-words .w.absent")
    sync_api.expect(absent).to_have_count(5)
    assert sorted(a.inner_text() for a in absent.all()) == [
        "and", "brilliant", "composed", "keeper", "not"]  # fmt: skip
    first = absent.first
    assert first.inner_text() == "not" and "for" in (first.get_attribute("class") or "")
    assert first.get_attribute("data-evidence") == "Infinity"
    assert "rgba(22, 128, 61" in first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert "dashed" in first.evaluate("e => getComputedStyle(e).borderStyle")
    assert first.get_attribute("title") == "not: absent from the text, +∞ for positive"
    values = page.locator("#absent-words .v")
    assert [v.inner_text() for v in values.all()] == ["+∞", "-0.41", "-0.41", "-0.41", "-0.41"]
    for other in absent.all()[1:]:
        assert "against" in (other.get_attribute("class") or "")
        assert "rgba(196, 43, 28" in other.evaluate("e => getComputedStyle(e).backgroundColor")
    sync_api.expect(page.locator("#lx")).to_be_visible()
    _inside_the_card(page)
    page.screenshot(path=str(_shots(tmp_path) / "page-absent-words.png"), full_page=True)
    # a word of the text with infinite evidence is coloured so too (it was neutral), and a
    # text no class can explain is shown for the first class, its absent words included
    _explain_on_page(page, "keeper was not sharp")
    sync_api.expect(page.locator("#label")).to_have_text("cannot decide")
    keeper = page.locator("#words .w", has_text="keeper")
    assert keeper.get_attribute("data-evidence") == "-Infinity"
    assert "against" in (keeper.get_attribute("class") or "")
    sync_api.expect(absent.first).to_have_text("match")
    assert "for and against negative" in box.locator(".title").inner_text()
    page.set_viewport_size({"width": 420, "height": 900})
    _inside_the_card(page)
    page.screenshot(path=str(_shots(tmp_path) / "page-absent-words-420.png"), full_page=True)
    assert not errors
    # with smoothing: finite evidence, the same words
    path, model = _reviews(tmp_path, "smoothed", model="bernoulli", alpha=1.0)
    page, errors = _open(browser, start(path), height=700)
    _explain_on_page(page, "match was sharp")
    sync_api.expect(page.locator("#label")).to_have_text("positive")
    absent = page.locator("#absent-words .w.absent")
    sync_api.expect(absent).to_have_count(5)
    exp = model.explain("match was sharp")
    not_ = exp.evidence(list(exp.feature_index(["not"]).values()))[1][0]
    assert absent.first.inner_text() == "not"
    assert float(absent.first.get_attribute("data-evidence")) == pytest.approx(not_)
    assert page.locator("#absent-words .v").first.inner_text() == f"+{not_:.2f}" == "+1.16"
    assert not errors
    # a multinomial model: the text's words, no absent ones
    path, _ = _reviews(tmp_path, "multinomial", alpha=1.0)
    page, errors = _open(browser, start(path), height=700)
    sync_api.expect(page.locator("#meta")).to_contain_text("(multinomial)")
    _explain_on_page(page, "match was sharp")
    sync_api.expect(page.locator("#label")).to_have_text("positive")
    sync_api.expect(page.locator("#words .w")).to_have_count(3)
    sync_api.expect(page.locator("#absent")).to_be_hidden()
    sync_api.expect(page.locator("#absent-words .w")).to_have_count(0)
    sync_api.expect(page.locator("#lx")).to_be_hidden()
    assert not errors


def test_the_page_of_a_table_model_is_a_form(tmp_path: Path, start: Any, browser: Any) -> None:
    rng = np.random.default_rng(0)
    y = rng.choice(["setosa", "versicolor"], 60).tolist()
    shift = np.array([1.5 if c == "setosa" else 0.0 for c in y])
    X = pd.DataFrame({"length": rng.normal(5, 1, 60) + shift, "width": rng.normal(3, 0.5, 60)})
    path = str(tmp_path / "iris.nbayes")
    model = nbayes.GaussianNB().fit(X, y)
    nbayes.save(model, path)
    server = start(path)
    page = browser.new_page(viewport={"width": 1200, "height": 760})
    page.goto(f"http://127.0.0.1:{server.port}/")
    sync_api.expect(page.locator("#col-length")).to_be_visible()
    sync_api.expect(page.locator("#text")).to_be_hidden()
    page.locator("#col-length").fill("7.1")
    page.locator("#col-width").fill("2.9")
    page.locator("#classify").click()
    row = pd.DataFrame([[7.1, 2.9]], columns=["length", "width"])
    sync_api.expect(page.locator("#label")).to_have_text(model.predict(row)[0])
    cells = page.locator("#columns tbody tr")
    assert cells.count() == 2 and cells.nth(0).locator("td").nth(0).inner_text() == "length"
    page.screenshot(path=str(_shots(tmp_path) / "page-table.png"), full_page=True)


def test_the_page_explains_a_mixed_row_with_a_missing_cell(
    tmp_path: Path, start: Any, browser: Any
) -> None:
    """An empty cell of a MixedNB row made /explain answer NaN, which is not JSON: the page
    said "Unexpected token 'I'". The explanation now leaves the missing cell out."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({
        "age": rng.integers(18, 90, 120).astype(float), "city": rng.choice(["a", "b"], 120),
        "score": rng.normal(size=120),
    })  # fmt: skip
    y = rng.choice(["yes", "no"], 120).tolist()
    path = str(tmp_path / "mixed.nbayes")
    model = nbayes.MixedNB().fit(X, y)
    nbayes.save(model, path)
    server = start(path)
    page, errors = _open(browser, server, height=760)
    sync_api.expect(page.locator("#col-age")).to_be_visible()
    page.locator("#col-age").fill("")  # missing
    page.locator("#col-city").fill("a")
    page.locator("#col-score").fill("0.5")
    page.locator("#classify").click()
    row = pd.DataFrame([[np.nan, "a", 0.5]], columns=["age", "city", "score"])
    sync_api.expect(page.locator("#label")).to_have_text(str(model.predict(row)[0]))
    cells = page.locator("#columns tbody tr")
    sync_api.expect(cells).to_have_count(3)
    shown = [[td.inner_text() for td in cells.nth(i).locator("td").all()] for i in range(3)]
    assert [r[0] for r in shown] == ["city", "score", "age"]
    assert shown[2][1:] == ["missing", "0"]
    assert "Unexpected token" not in page.content() and not errors
    page.screenshot(path=str(_shots(tmp_path) / "page-mixed-missing.png"), full_page=True)


def test_emptying_the_text_clears_the_prediction_and_no_favicon_is_missing(
    text_model: str, start: Any, browser: Any, tmp_path: Path
) -> None:
    """Issue 28 trap 5: the page kept the last text's prediction once the text was
    emptied, and the browser's request for /favicon.ico got a 404."""
    server = start(text_model)
    page = browser.new_page(viewport={"width": 1000, "height": 700})
    failed: list[str] = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    page.goto(f"http://127.0.0.1:{server.port}/")
    page.locator("#text").fill(SPAM)
    page.locator("#classify").click()
    sync_api.expect(page.locator("#label")).to_have_text("spam")
    page.locator("#text").fill("")  # typed away: the input event classifies after a pause
    sync_api.expect(page.locator("#answer")).to_be_hidden()
    sync_api.expect(page.locator("#empty")).to_be_visible()
    assert page.locator("#derive").is_disabled()
    page.locator("#text").fill("see you at lunch")
    sync_api.expect(page.locator("#answer")).to_be_visible()
    page.screenshot(path=str(_shots(tmp_path) / "page-cleared.png"))
    icon = page.locator("link[rel=icon]").get_attribute("href")
    assert icon is not None and icon.startswith("data:image/svg+xml,")
    page.wait_for_timeout(300)
    assert not failed, failed


MAIL_HAM = [
    "Subject: lunch\n\nmeeting at noon, bring the quarterly report",
    "Subject: report\n\nthe quarterly report is attached, comments welcome",
]
MAIL_SPAM = [
    "Subject: cheap pills\n\nbuy cheap pills now, best price, click here",
    "Subject: winner\n\nyou are a winner, claim your cash prize, click here",
]
RAW_SPAM = "From: x@example.com\nSubject: claim your prize\n\nclick here to claim your cash now"


def test_the_page_of_a_spam_filter_filters_and_registers_a_pasted_message(
    start: Any, browser: Any, tmp_path: Path
) -> None:
    from nbayes.spam import SpamFilter

    path = tmp_path / "mail.nbayes"
    f = SpamFilter().fit(MAIL_HAM + MAIL_SPAM, ["ham", "ham", "spam", "spam"])
    nbayes.save(f, path)
    server = start(str(path), "--token", "s3cret")
    page, errors = _open(browser, server, height=900)
    sync_api.expect(page.locator("#meta")).to_contain_text("SpamFilter")
    page.locator("#text").fill(RAW_SPAM)
    page.locator("#classify").click()
    want = f.clues(RAW_SPAM)
    sync_api.expect(page.locator("#label")).to_have_text("spam")
    sync_api.expect(page.locator("#label-p")).to_contain_text(f"{want.verdict.spamicity:.6f}")
    sync_api.expect(page.locator("#label-p")).to_contain_text(
        f"log-odds lowered by {want.bias:.2f} (ham_bias)"
    )
    rows = page.locator("#clues tbody tr")
    sync_api.expect(rows).to_have_count(min(40, want.n_used))
    sync_api.expect(rows.first.locator("td").first).to_have_text(want.used()[0].token)
    # "not spam" without the token, then with a wrong one: refused, nothing learnt, in
    # a person's words (it spoke of an HTTP header: a trial's)
    page.locator("#not-spam").click()
    sync_api.expect(page.locator("#error")).to_contain_text("type it in the token field")
    page.locator("#token").fill("wrong")
    page.locator("#not-spam").click()
    sync_api.expect(page.locator("#error")).to_contain_text("refused this token")
    page.locator("#token").fill("s3cret")
    page.locator("#not-spam").click()
    sync_api.expect(page.locator("#registered")).to_contain_text("ham 3")
    page.screenshot(path=str(_shots(tmp_path) / "page-spam.png"), full_page=True)
    assert errors == []
    assert server.terminate() == 0
    assert nbayes.load(path).table_.n_ham == 3


LONG_HOST = "www." + "averyveryverylongsubdomainpart" * 6 + ".example.com"
WORDS = [f"zoffer{i}" for i in range(60)]  # (after url:... among equal clues)
LATIN1 = "From: a@b.c\nSubject: caf\xe9\nContent-Type: text/plain; charset=iso-8859-1\n\n"


def _spam_page_model(tmp_path: Path) -> Any:
    from nbayes.spam import SpamFilter

    spam = [m + f"\nvisit http://{LONG_HOST}/x " + " ".join(WORDS) for m in MAIL_SPAM]
    ham = [m + "\ncaf\xe9 d\xe9jeuner near the office" for m in MAIL_HAM]
    f = SpamFilter().fit(ham + spam, ["ham", "ham", "spam", "spam"])
    nbayes.save(f, tmp_path / "mail.nbayes")
    return f


def _fits(page: Any, width: int) -> None:
    """Nothing sticks out: the page as wide as the window, the clues inside their card."""
    sizes = page.evaluate(
        """() => ({doc: document.documentElement.scrollWidth,
                   table: document.getElementById("clues").getBoundingClientRect().right,
                   card: document.getElementById("result").getBoundingClientRect().right})"""
    )
    assert sizes["doc"] <= width and sizes["table"] <= sizes["card"], sizes


def test_the_spam_page_shows_long_clues_in_their_card_and_only_the_boxs_verdict(
    start: Any, browser: Any, tmp_path: Path
) -> None:
    """A user's trial: a 180-character URL token pushed the numbers off screen (the page
    was 2,076 px wide at 1,200); the verdict of another message stayed on screen (box
    cleared, an error, the server down) with the buttons on; the spam bar was green; the
    list of 40 clues did not say it was cut; a double click registered twice; the class
    counts at the top were not refreshed."""
    f = _spam_page_model(tmp_path)
    server = start(str(tmp_path / "mail.nbayes"), "--max-body", "4k")
    message = f"Subject: deal\n\nvisit http://{LONG_HOST}/x " + " ".join(WORDS)
    want = f.clues(message)
    assert want.n_used > 40 and any(LONG_HOST in c.token for c in want.used()[:40])
    page, errors = _open(browser, server, height=900)
    sync_api.expect(page.locator("#meta")).to_contain_text("ham (2), spam (2)")
    page.locator("#text").fill(message)
    page.locator("#classify").click()
    sync_api.expect(page.locator("#label")).to_have_text("spam")
    _fits(page, 1200)
    fill = page.locator("#bars .fill").evaluate("e => getComputedStyle(e).backgroundColor")
    assert fill == "rgb(196, 43, 28)"  # spam red, as the verdict
    sync_api.expect(page.locator("#clues-more")).to_have_text(
        f"40 of {want.n_used} clues shown (the strongest)."
    )
    page.screenshot(path=str(_shots(tmp_path) / "page-spam-long-1200.png"), full_page=True)
    page.set_viewport_size({"width": 420, "height": 900})
    _fits(page, 420)
    page.screenshot(path=str(_shots(tmp_path) / "page-spam-long-420.png"), full_page=True)
    page.set_viewport_size({"width": 1200, "height": 900})
    # the text changes: the verdict is greyed and the buttons off at once
    page.locator("#text").press("End")
    page.locator("#text").type(" more")
    assert page.locator("#not-spam").is_disabled()
    assert "stale" in page.locator("#answer").get_attribute("class")
    sync_api.expect(page.locator("#not-spam")).to_be_enabled()  # the new verdict came
    # a double click registers once; the counts at the top follow
    page.locator("#not-spam").dblclick()
    sync_api.expect(page.locator("#registered")).to_contain_text("ham 3")
    sync_api.expect(page.locator("#meta")).to_contain_text("ham (3), spam (2)")
    page.wait_for_timeout(300)
    assert server.get("/info")[1]["classes"][0]["count"] == 3
    # registered: its buttons stay off until the text changes (or undo), so a second click,
    # however late (a loaded machine handled the double click's second after the first's
    # answer and new verdict, and it registered again), learns nothing
    assert page.locator("#not-spam").is_disabled() and page.locator("#is-spam").is_disabled()
    # emptied: no verdict, no buttons
    page.locator("#text").fill("")
    sync_api.expect(page.locator("#answer")).to_be_hidden()
    assert page.locator("#not-spam").is_disabled()
    # an error (413): no verdict of the message before, the error said
    page.locator("#text").fill(RAW_SPAM)
    sync_api.expect(page.locator("#not-spam")).to_be_enabled()
    page.locator("#text").fill(RAW_SPAM + " lorem ipsum" * 500)
    sync_api.expect(page.locator("#error")).to_contain_text("--max-body")
    sync_api.expect(page.locator("#answer")).to_be_hidden()
    assert page.locator("#not-spam").is_disabled() and page.locator("#is-spam").is_disabled()
    # the server down: said so, in words
    page.locator("#text").fill(RAW_SPAM)
    sync_api.expect(page.locator("#not-spam")).to_be_enabled()
    assert server.terminate() == 0
    page.locator("#text").fill(RAW_SPAM + " again")
    sync_api.expect(page.locator("#error")).to_contain_text("server is not reachable")
    sync_api.expect(page.locator("#answer")).to_be_hidden()
    assert page.locator("#not-spam").is_disabled()
    page.screenshot(path=str(_shots(tmp_path) / "page-spam-down.png"), full_page=True)
    assert errors == []


def _drop(page: Any, data: bytes) -> None:
    """Drop a file of ``data`` on the page's text box, as a user drags an .eml there."""
    page.evaluate(
        """bytes => {
            const data = new DataTransfer();
            data.items.add(new File([new Uint8Array(bytes)], "m.eml", {type: "message/rfc822"}));
            document.getElementById("text").dispatchEvent(
                new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true}));
        }""",
        list(data),
    )


def test_a_dropped_message_is_filtered_as_its_bytes(
    start: Any, browser: Any, tmp_path: Path
) -> None:
    """A dropped .eml in Latin-1 was decoded as UTF-8 (café became caf\\ufffd): its clues
    were not the message's. Its bytes go to /filter as message/rfc822 now."""
    f = _spam_page_model(tmp_path)
    server = start(str(tmp_path / "mail.nbayes"))
    data = (LATIN1 + "caf\xe9 d\xe9jeuner near the office, see you").encode("latin-1")
    want = [c.token for c in f.clues(data).used()]
    assert "café" in want
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(f"http://127.0.0.1:{server.port}/")
    sync_api.expect(page.locator("#meta")).to_contain_text("SpamFilter")
    _drop(page, data)
    rows = page.locator("#clues tbody tr td:first-child")
    sync_api.expect(rows).to_have_count(min(40, len(want)))
    assert rows.all_inner_texts() == want[:40]
    # a message in KOI8-R (shown as Windows-1252): registered as its bytes (its text on the
    # page is another message, whose tokens are not its own: a user's trial), then undone
    # by the "undo" button (/forget): the model is the one before
    data = (
        "From: a@b.c\nSubject: privet\nContent-Type: text/plain; charset=koi8-r\n\n"
        "\u0434\u0435\u043d\u044c\u0433\u0438 \u0431\u044b\u0441\u0442\u0440\u043e"
    ).encode("koi8-r")
    assert "деньги" in f.tokenize(data)
    _drop(page, data)
    sync_api.expect(page.locator("#text")).to_have_value(data.decode("koi8-r"))  # (shown so)
    verdict = f.classify([data])[0]  # (its bytes' verdict shown)
    sync_api.expect(page.locator("#label-p")).to_contain_text(f"{verdict.spamicity:.6f}")
    sync_api.expect(page.locator("#not-spam")).to_be_enabled()
    assert page.locator("#undo").is_disabled()
    page.locator("#not-spam").click()
    sync_api.expect(page.locator("#registered")).to_contain_text("ham 3")
    f.partial_fit([data], ["ham"])  # (its bytes learnt: the same spamicity, to the bit)
    _, out = server.request("POST", "/filter", raw=data, headers={"content-type": "message/rfc822"})
    assert out["spamicity"] == f.classify([data])[0].spamicity
    page.locator("#undo").click()
    sync_api.expect(page.locator("#registered")).to_contain_text("Undone")
    sync_api.expect(page.locator("#registered")).to_contain_text("ham 2")
    sync_api.expect(page.locator("#meta")).to_contain_text("ham (2), spam (2)")
    assert page.locator("#undo").is_disabled()
    sync_api.expect(page.locator("#not-spam")).to_be_enabled()  # undone: it may be registered
    page.screenshot(path=str(_shots(tmp_path) / "page-spam-undone.png"), full_page=True)
    assert server.terminate() == 0
    f.unlearn([data], ["ham"])
    assert nbayes.load(tmp_path / "mail.nbayes").table_ == f.table_
