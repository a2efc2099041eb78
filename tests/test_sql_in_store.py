"""All SQL lives in `privault/store/`: no other module runs a statement or reads rows
through the connection's helpers. (The import contracts cannot see calls, so this test does.)"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "privault"
RUNS_SQL = {"execute", "executemany", "executescript"}
ROW_HELPERS = {"row", "rows"}


def _sql_outside_store(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Attribute) and func.attr in RUNS_SQL:
            found.append(f"line {func.lineno}: .{func.attr}(...)")
        if isinstance(node, ast.ImportFrom) and node.module == "privault.store.connection":
            for alias in node.names:
                if alias.name in ROW_HELPERS:
                    found.append(f"line {node.lineno}: imports {alias.name} from the connection")
    return found


def test_no_module_outside_store_runs_sql() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if "store" not in path.relative_to(PACKAGE).parts[:1]
        and (found := _sql_outside_store(path.read_text()))
    }
    assert offenders == {}


def test_the_check_sees_a_query_and_a_row_helper() -> None:
    source = (
        "from privault.store.connection import Connection, rows\n"
        "def f(conn):\n"
        "    conn.execute('SELECT 1')\n"
    )
    assert _sql_outside_store(source) == [
        "line 1: imports rows from the connection",
        "line 3: .execute(...)",
    ]
