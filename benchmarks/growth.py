"""Two (or more) kept vaults measured in one run, alternately, for growth ratios.

    python -m benchmarks.perf --compare SMALL.db LARGE.db [--json]

Each figure is taken vault by vault in turn (search: query by query), so both see the same
machine load; the result gives each vault's figures and the ratio of each later vault's
to the first's. The vaults are ones `benchmarks.perf --sections N --keep FILE` built.
Measured: search p50/p95 (fast path; again with the keyword leg in two ranges of chunk
ids where the vault is large enough and in one, query by query), the vector leg, context
p50/p95 with the strong leg, `status`, the documents page (first and a page 5,000
documents deep), a re-scan batch of 200 sections (after a detector change), forgetting a
document, file bytes per section, and in a fresh process each: the warm searcher's
resident memory, the same with the strong model, and a full export bundle (time, bytes,
peak memory). Forgetting, re-scanning and exporting change the files: run this on copies.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from benchmarks import corpus
from benchmarks.scale import _load, _probe, _summary, in_child, queries
from privault.caller import Caller
from privault.models import cores
from privault.privacy.detector import FakeDetector
from privault.retrieval import fts
from privault.store import pii
from privault.vault import Vault

CONTEXT_QUERIES = 20
FORGET_DOCUMENTS = 20


def _alternate(
    vaults: Sequence[Vault], run: Callable[[Vault, Any], Any], items: Sequence[Any]
) -> list[dict[str, float]]:
    """Per vault, the laps of `run(vault, item)`, items taken vault by vault in turn."""
    laps: list[list[float]] = [[] for _ in vaults]
    for item in items:
        for i, vault in enumerate(vaults):
            started = time.perf_counter()
            run(vault, item)
            laps[i].append((time.perf_counter() - started) * 1000)
    return [_summary(one) for one in laps]


def _keyword_ranges(
    vaults: Sequence[Vault], owner: Caller, asked: Sequence[str]
) -> dict[str, list[dict[str, float]]]:
    """Search with the keyword leg in two ranges where the vault is large enough (as
    shipped) and in one range, query by query, in turn (which goes first alternates)."""
    laps: dict[str, list[list[float]]] = {
        name: [[] for _ in vaults] for name in ("search_ms_split", "search_ms_one_range")
    }
    shipped = fts.SPLIT_MIN_CHUNKS
    spare = 0
    try:
        for n, query in enumerate(asked):
            order = ("search_ms_split", "search_ms_one_range")
            for name in order if n % 2 else order[::-1]:
                fts.SPLIT_MIN_CHUNKS = shipped if name == "search_ms_split" else 2**62
                spare += cores.spare_core()
                for i, vault in enumerate(vaults):
                    started = time.perf_counter()
                    vault.search(query, caller=owner)
                    laps[name][i].append((time.perf_counter() - started) * 1000)
    finally:
        fts.SPLIT_MIN_CHUNKS = shipped
    out = {name: [_summary(one) for one in per_vault] for name, per_vault in laps.items()}
    out["share_of_searches_with_a_spare_core"] = [{"share": spare / (2 * len(asked))}]
    return out


def _file_bytes(path: Path) -> int:
    return sum(
        os.path.getsize(f"{path}{suffix}")
        for suffix in ("", "-wal")
        if os.path.exists(f"{path}{suffix}")
    )


def compare(paths: Sequence[Path], models: Path) -> dict[str, Any]:
    """The figures of each vault at `paths`, measured alternately (see the module doc)."""
    owner = Caller.owner()
    out: dict[str, Any] = {"load_average_start": _load(), "vaults": [str(p) for p in paths]}
    figures: dict[str, list[Any]] = {}

    def note(name: str, values: list[Any]) -> None:
        figures[name] = values
        print(json.dumps({name: values, "load": _load()}), file=sys.stderr, flush=True)

    with ExitStack() as stack:
        vaults = [
            stack.enter_context(Vault.open(p, models_dir=models, detector_factory=FakeDetector))
            for p in paths
        ]
        statuses = [v.status() for v in vaults]
        note("sections", [s.sections for s in statuses])
        note("documents", [s.documents for s in statuses])
        note(
            "file_bytes_per_section",
            [
                round(_file_bytes(p) / max(s.sections, 1))
                for p, s in zip(paths, statuses, strict=True)
            ],
        )
        note("status_ms", _alternate(vaults, lambda v, _: v.status(), range(7)))
        loads = []
        for vault in vaults:
            started = time.perf_counter()
            vault.vectors.refresh(vault.conn)
            loads.append(round(time.perf_counter() - started, 2))
        note("vector_index_load_seconds", loads)
        note("vector_index_resident_mb", [round(v.vectors.resident_bytes / 1e6, 1) for v in vaults])
        asked = queries()
        for vault in vaults:
            vault.search("warm up", caller=owner)
        note("search_ms", _alternate(vaults, lambda v, q: v.search(q, caller=owner), asked))
        for name, laps in _keyword_ranges(vaults, owner, asked).items():
            note(name, laps)
        vectors = [vaults[0].embedder.embed_query(q) for q in corpus.QUERIES]
        note(
            "vector_leg_ms",
            _alternate(vaults, lambda v, x: v.vectors.search(x, 240, conn=v.conn), vectors),
        )
        note(
            "docs_page_ms",
            _alternate(vaults, lambda v, _: v.docs(caller=owner, limit=100), range(7)),
        )
        deep = [_deep_cursor(v) for v in vaults]
        note(
            "docs_page_5000_deep_ms",
            _alternate(
                vaults,
                lambda v, _: v.docs(caller=owner, limit=100, after=deep[vaults.index(v)]),
                range(7),
            ),
        )
        for vault in vaults:
            vault.context("warm up", caller=owner)
        note(
            "context_ms",
            _alternate(vaults, lambda v, q: v.context(q, caller=owner), asked[:CONTEXT_QUERIES]),
        )
        marking = []
        for vault in vaults:  # as after a change of detector: every section is stale
            started = time.perf_counter()
            pii.mark_for_rescan(vault.conn)
            marking.append(round(time.perf_counter() - started, 2))
        note("mark_all_for_rescan_seconds", marking)
        note("sections_to_rescan", [v.status().privacy.sections_to_rescan for v in vaults])
        note(
            "rescan_200_sections_ms",
            _alternate(vaults, lambda v, _: v.privacy.rescan(200, v.embedder), range(3)),
        )
        victims = [_victims(v, FORGET_DOCUMENTS) for v in vaults]
        note(
            "forget_ms",
            _alternate(
                vaults,
                lambda v, i: v.forget(victims[vaults.index(v)][i], caller=owner),
                range(FORGET_DOCUMENTS),
            ),
        )
    for name, fn in (
        ("warm_searcher_rss", lambda p: _probe(p, models, strong=False, chat=False)),
        ("searcher_with_strong_model_rss", lambda p: _probe(p, models, strong=True, chat=False)),
        ("export", lambda p: _export(p, models)),
    ):
        note(name, [fn(p) for p in paths])
    out["figures"] = figures
    out["ratios_to_first"] = _ratios(figures)
    out["load_average_end"] = _load()
    return out


def _deep_cursor(vault: Vault) -> tuple[int, str] | None:
    found = vault.conn.execute(
        "SELECT created_at, id FROM documents WHERE current = 1"
        " ORDER BY created_at DESC, id LIMIT 1 OFFSET 5000"
    ).fetchone()
    return (int(found[0]), str(found[1])) if found else None


def _victims(vault: Vault, count: int) -> list[str]:
    return [
        doc_id
        for (doc_id,) in vault.conn.execute(
            "SELECT id FROM documents WHERE current = 1 ORDER BY id LIMIT ?", (count,)
        )
    ]


def _ratios(figures: dict[str, list[Any]]) -> dict[str, list[Any]]:
    ratios: dict[str, list[Any]] = {}
    for name, values in figures.items():
        first = values[0]
        if isinstance(first, dict) and "p95" in first:
            ratios[name] = [
                {key: round(v[key] / max(first[key], 1e-9), 2) for key in ("p50", "p95")}
                for v in values
            ]
        elif isinstance(first, int | float):
            ratios[name] = [round(v / max(first, 1e-9), 2) for v in values]
    return ratios


def _export(path: Path, models: Path) -> dict[str, Any]:
    """A full export bundle written by a fresh process: seconds, bytes, peak memory."""
    return in_child("benchmarks.growth", "export_child", path, models)


def export_child(path: str, models: str) -> dict[str, Any]:
    """The body of `_export`, run in the child."""
    from benchmarks.scale import _rss

    target = Path(f"{path}.bundle")
    with Vault.open(Path(path), models_dir=Path(models), detector_factory=FakeDetector) as vault:
        started = time.perf_counter()
        report = vault.sync.export(target, secret="benchmark passphrase", caller=Caller.owner())
        seconds = time.perf_counter() - started
    target.unlink(missing_ok=True)
    return {
        "seconds": round(seconds, 1),
        "rows": report.rows,
        "megabytes": round(report.bytes / 1e6, 1),
        "peak_mb": _rss()["peak_mb"],
    }
