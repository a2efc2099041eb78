"""The `folder` watch: index new and changed files under a path, mark removed ones.

Change is detected from (size, mtime in ns) remembered in the watch state, so an unchanged
tree costs one `stat` per file and no reads; the filer still compares content hashes, so a
touched-but-identical file does not make a new version. Hidden files and folders (`.git`)
are skipped and symlinks are not followed, so a link cannot pull files from outside the
watched path into the vault. A file the filer cannot read is reported and retried on the
next run (it is not remembered as indexed).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from privault.errors import PrivaultError
from privault.watches.actions import ActionContext, ActionResult
from privault.watches.model import Watch

SUFFIXES = frozenset({".md", ".markdown", ".txt", ".html", ".htm", ".pdf"})
MAX_FILES = 20_000


def _scan(root: Path) -> dict[str, str]:
    """Relative path -> "size:mtime_ns" for every eligible file under `root`."""
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(name for name in dirs if not name.startswith("."))
        for name in sorted(files):
            path = Path(folder, name)
            if name.startswith(".") or path.suffix.lower() not in SUFFIXES:
                continue
            if path.is_symlink() or len(found) >= MAX_FILES:
                continue
            try:
                info = path.stat()
            except OSError:
                continue  # vanished between listing and stat; the next run sees it
            found[str(path.relative_to(root))] = f"{info.st_size}:{info.st_mtime_ns}"
    return found


def folder_action(
    watch: Watch, state: dict[str, Any], planned_at: int, context: ActionContext
) -> ActionResult:
    """Index what is new or changed since the last run; mark what disappeared."""
    root = Path(watch.target)
    if not root.is_dir():
        # A removable or network drive may come back: retry rather than mark all removed.
        return ActionResult.failed(f"folder {root} is not there", retryable=True)
    before: dict[str, str] = dict(state.get("files", {}))
    now = _scan(root)
    remembered = dict(before)
    doc_ids: list[str] = []
    indexed = removed = 0
    problems: list[str] = []
    for relative, signature in now.items():
        if before.get(relative) == signature:
            continue
        try:
            filed = context.filer.index_file(root / relative, shelf=watch.shelf)
        except (PrivaultError, OSError) as exc:
            problems.append(f"{relative}: {exc}")
            remembered.pop(relative, None)
            continue
        remembered[relative] = signature
        if filed.changed:
            indexed += 1
            doc_ids.append(filed.doc_id)
    for relative in sorted(set(before) - set(now)):
        context.filer.mark_removed(root / relative, shelf=watch.shelf)
        remembered.pop(relative, None)
        removed += 1
    summary = f"{indexed} indexed, {removed} removed, {len(now)} files"
    if problems:
        summary += f", {len(problems)} unreadable"
    status = "changed" if indexed or removed else "unchanged"
    error = "; ".join(problems[:5]) if problems else None
    return ActionResult(status, summary, tuple(doc_ids), error=error, state={"files": remembered})
