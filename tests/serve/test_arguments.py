"""``nbayes.serve.add_arguments`` / ``run``: the contract the CLI's subcommand wires."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from nbayes.serve import add_arguments, run


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="nbayes")
    sub = parser.add_subparsers(dest="command")
    add_arguments(sub.add_parser("serve"))
    return parser.parse_args(["serve", *argv])


def test_defaults_and_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NBAYES_SERVE_TOKEN", raising=False)
    args = _parse("spam.nbayes")
    assert (args.model, args.host, args.port, args.token, args.workers) == (
        "spam.nbayes", "127.0.0.1", 8000, None, 1,
    )  # fmt: skip
    assert args.max_body == 10 * 1024 * 1024
    args = _parse("m", "--host", "::1", "--port", "0", "--token", "t", "--workers", "3",
                  "--max-body", "512k", "--fold-every", "5", "--fold-seconds", "0.5")  # fmt: skip
    assert (args.host, args.port, args.token, args.workers, args.max_body) == (
        "::1", 0, "t", 3, 512 * 1024,
    )  # fmt: skip
    assert (args.fold_every, args.fold_seconds) == (5, 0.5)
    assert _parse("m", "--max-body", "2000").max_body == 2000


def test_the_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NBAYES_SERVE_TOKEN", "from-env")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args(["m"]).token == "from-env"


def test_bad_sizes_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("lots", "0", "-5k"):
        with pytest.raises(SystemExit):
            _parse("m", "--max-body", bad)
    assert "not a size" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["inf", "1e400", "-inf", "1e400k", "infinity", "nan"])
def test_sizes_out_of_any_range_are_refused_with_the_flag_named(
    bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # float("inf") parses: int() of it raised OverflowError, which argparse does not turn
    # into a usage error (a traceback, exit status 1)
    with pytest.raises(SystemExit) as exit:
        _parse("m", "--max-body", bad)
    assert exit.value.code == 2
    assert "--max-body" in capsys.readouterr().err


def test_a_missing_model_file(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_parse(f"{tmp_path}/none.nbayes", "--port", "0")) == 2
    assert "no model file" in capsys.readouterr().err


def test_python_dash_m_help() -> None:
    out = subprocess.run([sys.executable, "-m", "nbayes.serve", "--help"], capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    assert "--workers" in out and "--token" in out and "MODEL" in out


def test_a_model_it_cannot_answer_for(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """An NBSVM (a linear model on NB features) is refused with advice, not served as a
    table model."""
    import nbayes

    path = f"{tmp_path}/svm.nbayes"
    docs = ["good fun film", "great acting", "dull plot", "bad boring film"] * 3
    nbayes.save(nbayes.NBSVM().fit(docs, ["pos", "pos", "neg", "neg"] * 3), path)
    assert run(_parse(path, "--port", "0")) == 2
    err = capsys.readouterr().err
    assert "NBSVM model is not a Naive Bayes model" in err and "nbayes predict" in err
    # let go of: this process kept the model locked, and `nbayes update` of it afterwards
    # in this process was told the (never started) server held it
    from nbayes.io.lock import LockedError, ModelLock

    try:
        with ModelLock(path, "a test"):
            pass
    except LockedError as exc:
        raise AssertionError(f"still locked after the failed start: {exc}") from None
    held = [os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
            if os.path.exists(f"/proc/self/fd/{fd}")]  # fmt: skip
    assert not [f for f in held if f.startswith(str(tmp_path))], held  # nor its journal open
