"""`privault demo` — the README's first command — run whole, as a new user runs it, on the
smallest real models: every step must work and the agent's view must stay masked."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.real

MODELS = ("minilm-l6-v2-int8", "en-core-web-md-ner", "smollm2-135m")


def test_the_demo_runs_end_to_end(tmp_path: Path, models_dir: Path) -> None:
    models = tmp_path / "models"  # without the strong model: the demo must not need it
    models.mkdir()
    for name in MODELS:
        (models / name).symlink_to(models_dir / name)
    privault = Path(sys.executable).with_name("privault")
    env = {**os.environ, "PRIVAULT_MODELS": str(models), "COLUMNS": "100"}
    done = subprocess.run(
        [str(privault), "demo", "--chat-model", "smollm2-135m"],
        env=env,
        capture_output=True,
        text=True,
        timeout=800,
    )
    out = done.stdout
    assert done.returncode == 0, out[-3000:] + done.stderr[-3000:]
    assert "ask_memory → smollm2-135m" in out  # the agent's question reached the local model
    assert "memory_search" in out and "<IBAN_CODE_1>" in out  # the agent saw it masked
    assert "GB82" in out.split("launching:")[0]  # the owner saw the IBAN…
    assert "GB82" not in out.split("launching:")[1]  # …no agent did
    assert "demo-agent ask_memory ok" in out  # the owner's audit has the agent's ask


def test_the_demo_says_how_to_see_a_missing_model(tmp_path: Path) -> None:
    env = {**os.environ, "PRIVAULT_MODELS": str(tmp_path / "none")}
    privault = shutil.which("privault", path=str(Path(sys.executable).parent))
    assert privault is not None
    done = subprocess.run([privault, "demo"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "models install" in done.stdout + done.stderr
