"""The import direction the design promises: the core knows nothing of its interfaces."""

from __future__ import annotations

import ast
from pathlib import Path

import privault

PACKAGE = Path(privault.__file__).parent
FORBIDDEN_IMPORTS = {"typer", "click", "mcp", "apscheduler", "rich", "uvicorn", "starlette"}


def _core_files() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if "interfaces" not in p.relative_to(PACKAGE).parts]


def test_core_does_not_import_interface_libraries() -> None:
    offenders = []
    for path in _core_files():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                root = name.split(".")[0]
                if root in FORBIDDEN_IMPORTS or name.startswith("privault.interfaces"):
                    offenders.append(f"{path.relative_to(PACKAGE)}: {name}")
    assert offenders == []


def test_core_does_not_read_the_environment() -> None:
    offenders = []
    for path in _core_files():
        source = path.read_text()
        for needle in ("os.environ", "os.getenv", "getenv("):
            if needle in source:
                offenders.append(f"{path.relative_to(PACKAGE)}: {needle}")
    assert offenders == []


def test_core_modules_stay_small() -> None:
    """A hard ceiling; the aim is ~300 lines (a module past that is usually two concepts)."""
    large = {
        str(p.relative_to(PACKAGE)): n
        for p in _core_files()
        if (n := len(p.read_text().splitlines())) > 450
    }
    assert large == {}


def test_the_web_page_reaches_the_vault_only_through_the_facade() -> None:
    """The owner's page calls `Vault` methods and reads their results: no SQL, no store."""
    offenders = []
    for path in (PACKAGE / "interfaces" / "web").rglob("*.py"):
        source = path.read_text()
        tree = ast.parse(source, filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "privault.store"
            ):
                offenders.append(f"{path.name}: imports {node.module}")
            if isinstance(node, ast.Import):
                offenders += [
                    f"{path.name}: imports {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("privault.store")
                ]
            if isinstance(node, ast.Attribute) and node.attr in ("conn", "execute"):
                offenders.append(f"{path.name}:{node.lineno}: .{node.attr}")
    assert offenders == []
