"""The CLI reference (docs/cli.md) documents every command, and the Python examples of the
README and docs/python-api.md run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer.main

from privault.interfaces.cli import app

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text()
CLI_REFERENCE = (ROOT / "docs" / "cli.md").read_text()
PYTHON_API = (ROOT / "docs" / "python-api.md").read_text()


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
def test_every_command_is_in_the_cli_reference(command: str) -> None:
    *parents, last = command.split()
    if parents:
        # `watch add url` may be written as `watch add url|search|...`
        pattern = re.escape(" ".join(parents)) + r"[^\n]*\b" + re.escape(last) + r"\b"
    else:
        pattern = r"privault " + re.escape(last) + r"\b"
    assert re.search(pattern, CLI_REFERENCE), f"`privault {command}` is not in docs/cli.md"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_text(command: str) -> None:
    node: Any = typer.main.get_command(app)
    for part in command.split():
        node = node.commands[part]
    assert (node.help or node.short_help or "").strip(), f"{command} has no help"


@pytest.mark.parametrize(
    ("text", "heading"), [(README, "## Use it from Python"), (PYTHON_API, "## Python API")]
)
def test_the_python_examples_run(tmp_path: Path, text: str, heading: str) -> None:
    code = text.split(heading, 1)[1].split("```python", 1)[1].split("```", 1)[0]
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


def _anchors(page: str) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, `-` for spaces."""
    headings = re.findall(r"(?m)^#+ (.+)$", page)
    return {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}


def test_the_readme_stays_short_and_its_links_resolve() -> None:
    assert len(README.splitlines()) <= 250
    for path in [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]:
        page = path.read_text()
        for target, anchor in re.findall(r"\]\(([^)#:\s]*\.md)?(?:#([^)]*))?\)", page):
            linked = (path.parent / target).resolve() if target else path
            assert linked.exists(), f"{path.name}: {target}"
            if anchor:
                assert anchor in _anchors(linked.read_text()), f"{path.name}: {target}#{anchor}"
