"""The layer rules of DESIGN.md, checked by import-linter (the contracts in pyproject.toml)
and by grimp (no import cycle crosses a package boundary; nothing imports the root)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).parents[1]
LINT = Path(sys.executable).parent / "lint-imports"


def _lint(folder: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run(
        [str(LINT), "--config", str(folder / "pyproject.toml"), "--no-cache"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The package and its contracts, copied where a test may break them."""
    shutil.copytree(
        ROOT / "privault", tmp_path / "privault", ignore=shutil.ignore_patterns("*.pyc")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add_import(module: Path, line: str) -> None:
    text = module.read_text()
    head, _, rest = text.partition("from __future__ import annotations\n")
    module.write_text(f"{head}from __future__ import annotations\n{line}\n{rest}")


def test_the_contracts_hold_on_the_package_as_it_is(copy: Path) -> None:
    result = _lint(copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_a_store_module_importing_the_facade_breaks_the_layers(copy: Path) -> None:
    _add_import(copy / "privault/store/shelves.py", "import privault.vault.context  # noqa")
    result = _lint(copy)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout
    assert "privault.store.shelves -> privault.vault.context" in result.stdout


def test_a_capability_importing_another_independent_one_breaks_the_layers(copy: Path) -> None:
    _add_import(copy / "privault/watches/model.py", "import privault.statements.model  # noqa")
    result = _lint(copy)
    assert result.returncode != 0
    assert "privault.watches.model -> privault.statements.model" in result.stdout


def test_sync_is_a_layer_between_the_facade_and_the_capabilities(copy: Path) -> None:
    _add_import(copy / "privault/sync/rows.py", "import privault.vault.context  # noqa")
    _add_import(copy / "privault/statements/model.py", "import privault.sync.hlc  # noqa")
    result = _lint(copy)
    assert result.returncode != 0
    assert "privault.sync.rows -> privault.vault.context" in result.stdout
    assert "privault.statements.model -> privault.sync.hlc" in result.stdout


def test_an_interface_importing_the_store_is_refused(copy: Path) -> None:
    _add_import(copy / "privault/interfaces/agents.py", "import privault.store.agents  # noqa")
    result = _lint(copy)
    assert result.returncode != 0
    assert "interfaces reach the vault only through the facade BROKEN" in result.stdout


def _unit(module: str) -> str:
    """The package (or top-level module) a module belongs to: `privault.vault`, …"""
    parts = module.split(".")
    return ".".join(parts[:2])


def _cycles_across_units(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of modules that span more than one package (Tarjan)."""
    modules = sorted(m for m in graph.modules if m != "privault")
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child == "privault":
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len({_unit(m) for m in group}) > 1:
                        groups.append(sorted(group))

    for module in modules:
        if module not in index:
            visit(module)
    return groups


def test_no_import_cycle_crosses_a_package_and_nothing_imports_the_root() -> None:
    graph = grimp.build_graph("privault")
    assert _cycles_across_units(graph) == []
    assert graph.find_modules_that_directly_import("privault") == set()


def test_the_cycle_check_sees_a_cycle_across_packages() -> None:
    graph = grimp.ImportGraph()
    for module in ("privault", "privault.a", "privault.a.x", "privault.b", "privault.b.y"):
        graph.add_module(module)
    graph.add_import(importer="privault.a.x", imported="privault.b.y")
    assert _cycles_across_units(graph) == []
    graph.add_import(importer="privault.b.y", imported="privault.a.x")
    assert _cycles_across_units(graph) == [["privault.a.x", "privault.b.y"]]
