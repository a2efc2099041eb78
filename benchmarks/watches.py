"""Cost of polling watches: an empty poll, and 1,000 due reminder watches.

    python -m benchmarks.watches [--json] [--watches 1000]

Runs on a real vault file in a temporary folder (WAL, synchronous=FULL) with an in-memory
filer, so the numbers are the scheduler's own cost — enqueue, lease, record, complete —
not the cost of indexing what a watch files.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from privault.store.connection import connect
from privault.store.migrations import migrate
from privault.watches.actions import Filed
from privault.watches.fetcher import Fetcher
from privault.watches.manage import add_watch
from privault.watches.poll import poll

T0 = 1_780_000_000_000


class _NullFiler:
    """Files nothing; hands out ids."""

    def __init__(self) -> None:
        self.count = 0

    def _id(self) -> str:
        self.count += 1
        return f"doc{self.count}"

    def file_page(self, **kwargs: object) -> Filed:
        return Filed(self._id(), True)

    def file_note(self, **kwargs: object) -> str:
        return self._id()

    def file_search_result(self, **kwargs: object) -> str | None:
        return self._id()

    def index_file(self, path: Path, *, shelf: str) -> Filed:
        return Filed(self._id(), True)

    def mark_removed(self, path: Path, *, shelf: str) -> bool:
        return True


def run(watches: int) -> dict[str, object]:
    """Measure and return the numbers."""
    with tempfile.TemporaryDirectory() as folder, Fetcher() as fetcher:
        conn = connect(Path(folder) / "bench.db")
        migrate(conn)
        filer = _NullFiler()
        empty = []
        for index in range(20):
            started = time.perf_counter()
            poll(conn, filer, fetcher, now_ms=T0 + index)
            empty.append((time.perf_counter() - started) * 1000)
        for index in range(watches):
            add_watch(conn, "remind", f"reminder {index}", every="1d", now_ms=T0)
        started = time.perf_counter()
        report = poll(conn, filer, fetcher, now_ms=T0 + 86_400_000)
        total = (time.perf_counter() - started) * 1000
        assert report.ran == watches and report.failed == 0, report.to_dict()
        started = time.perf_counter()
        idle = poll(conn, filer, fetcher, now_ms=T0 + 86_400_001)
        idle_ms = (time.perf_counter() - started) * 1000
        assert idle.ran == 0
        conn.close()
    return {
        "empty_poll_ms_median": round(statistics.median(empty), 3),
        "due_watches": watches,
        "due_poll_ms_total": round(total, 1),
        "due_poll_ms_per_watch": round(total / watches, 3),
        "idle_poll_with_watches_ms": round(idle_ms, 3),
    }


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--watches", type=int, default=1000)
    args = parser.parse_args()
    result = run(args.watches)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:32} {value}")


if __name__ == "__main__":
    main()
