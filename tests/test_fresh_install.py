"""The README's first command on a fresh virtual environment: install, then `nbayes demo`.

The README's second command (the tests) is what `.ci/run` itself executes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_install_and_demo_in_a_fresh_venv(tmp_path: Path) -> None:
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("not running from a source checkout")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(ROOT)],
        check=True,
        env=env,
        timeout=900,
    )
    demo = subprocess.run(
        [str(bin_dir / "nbayes"), "demo"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert "accuracy" in demo.stdout and "Prediction: spam" in demo.stdout
    # the installed package is the one used, not the source tree
    where = subprocess.run(
        [str(python), "-c", "import nbayes; print(nbayes.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert str(env_dir) in where.stdout
    assert sys.executable != str(python)
