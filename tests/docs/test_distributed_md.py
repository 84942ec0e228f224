"""docs/distributed.md's examples run as written.

Its ```python blocks run in order, in one namespace, in an empty working directory (they
write the files they read; the last one closes the cluster the first started). Then its
``nbayes ...`` command lines run, once each, after the Python blocks, whose files they
read; a command naming a ``tcp://`` scheduler needs a cluster that is not there, and is
left out.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

DOC = Path(__file__).resolve().parents[2] / "docs" / "distributed.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _blocks(language: str) -> list[str]:
    return [m.group(2) for m in BLOCK.finditer(DOC.read_text(encoding="utf-8"))
            if m.group(1) == language]  # fmt: skip


def _commands() -> list[str]:
    commands: list[str] = []
    for block in _blocks("bash"):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if command.startswith("nbayes ") and "tcp://" not in command:
                if command not in commands:
                    commands.append(command)
    return commands


def test_the_page_has_examples() -> None:
    assert len(_blocks("python")) >= 6
    assert _commands() == ["nbayes train 'parts/*.csv' -o spam.nbayes --workers 2"]


@pytest.mark.slow
# LocalCluster's scheduler serves HTTP on 8787 when it is free, and warns when it is not
@pytest.mark.filterwarnings("ignore:Port .* is already in use:UserWarning")
def test_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__main__"}
    for code in _blocks("python"):
        exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102
    for command in _commands():
        proc = subprocess.run(
            [sys.executable, "-m", *shlex.split(command)],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert proc.returncode == 0, (command, proc.stderr)
        assert "Training on Dask (a local cluster of 2 workers) ..." in proc.stderr
    assert (tmp_path / "spam.nbayes").exists()
