"""The command line of privault's PII set generators (`pii_synth`, `pii_synth2`,
`pii_synth3`, `pii_labels`): generate with a seed (and a count), write the set as JSON."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def main(
    argv: list[str] | None,
    module: str,
    doc: str | None,
    generate: Callable[..., list[dict[str, Any]]],
    *,
    seed: int,
    out: Path,
    count: int | None = None,
    what: str = "sentences",
) -> int:
    """Parse `argv` (`--seed`, `--count` where the set has one, `--out`), generate, write."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description=doc)
    parser.add_argument("--seed", type=int, default=seed)
    if count is not None:
        parser.add_argument("--count", type=int, default=count)
    parser.add_argument("--out", type=Path, default=out)
    args = parser.parse_args(argv)
    items = generate(args.seed, args.count) if count is not None else generate(args.seed)
    args.out.write_text(json.dumps(items, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(items)} {what} to {args.out}")
    return 0
