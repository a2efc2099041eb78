"""The README documents every CLI command, and its Python example runs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer.main

from privault.interfaces.cli import app

README = (Path(__file__).parents[1] / "README.md").read_text()


def _commands(group: Any, prefix: str = "") -> list[str]:
    names = []
    for name, command in sorted(group.commands.items()):
        if command.hidden:
            continue
        path = f"{prefix}{name}"
        names.append(path)
        if hasattr(command, "commands"):  # a group (typer ships its own click)
            names += _commands(command, path + " ")
    return names


COMMANDS = _commands(typer.main.get_command(app))  # type: ignore[arg-type]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_is_in_the_readme(command: str) -> None:
    *parents, last = command.split()
    if parents:
        # `watch add url` may be written as `watch add url|search|...`
        pattern = re.escape(" ".join(parents)) + r"[^\n]*\b" + re.escape(last) + r"\b"
    else:
        pattern = r"privault " + re.escape(last) + r"\b"
    assert re.search(pattern, README), f"`privault {command}` is not in the README"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_text(command: str) -> None:
    node: Any = typer.main.get_command(app)
    for part in command.split():
        node = node.commands[part]
    assert (node.help or node.short_help or "").strip(), f"{command} has no help"


def test_the_python_example_runs(tmp_path: Path) -> None:
    code = README.split("## Python API", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    code = code.replace("~/.privault/vault.db", str(tmp_path / "v.db"))
    code = code.replace("~/.privault/models", str(tmp_path / "models"))
    # The example's own open call, given the fake engines.
    fakes = "embedder=FakeEmbedder(), detector_factory=FakeDetector, models_dir="
    code = code.replace("models_dir=", fakes)
    code = (
        "from privault.privacy.detector import FakeDetector\n"
        "from privault.retrieval.embedder import FakeEmbedder\n" + code
    )
    exec(compile(code, "README.md", "exec"), {})
