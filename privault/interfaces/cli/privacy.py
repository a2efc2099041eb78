"""`privault policy` and `privault pii`: the owner's privacy tools (no agent surface)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from privault.caller import Caller
from privault.interfaces.cli.common import (
    AsOption,
    JsonOption,
    caller_for,
    console,
    emit_json,
    opened,
    read_text_argument,
)
from privault.interfaces.cli.terminal import styled
from privault.privacy.policy import load_policy

policy_app = typer.Typer(
    help="Privacy policies: validate a file, show what applies to whom.", no_args_is_help=True
)
pii_app = typer.Typer(
    help="PII: scan or redact text, mark/unmark values, re-scan the vault.", no_args_is_help=True
)
OWNER = Caller.owner()
TextArgument = Annotated[str, typer.Argument(help="The text, or - to read standard input.")]


@policy_app.command("check")
def policy_check(
    path: Annotated[Path, typer.Argument(help="A policy YAML file.")],
    json_out: JsonOption = False,
) -> None:
    """Validate one policy file; a broken file exits non-zero with the reason."""
    policy = load_policy(path)
    warnings = policy.warnings()
    if json_out:
        emit_json({"ok": True, "policy": policy.model_dump(mode="json"), "warnings": warnings})
        return
    console.print(
        f"{path}: ok — policy {policy.name} ({policy.mode}), "
        f"{len(policy.identifying)} identifying kinds",
        highlight=False,
    )
    for warning in warnings:
        console.print(styled("[yellow]warning:[/yellow] {}", warning), highlight=False)


@policy_app.command("show")
def policy_show(as_agent: AsOption = None, json_out: JsonOption = False) -> None:
    """The policy that applies to you (or --as an agent), in general and per shelf."""
    with opened() as vault:
        caller = caller_for(as_agent, vault)
        base = vault.privacy.base_policy(caller)
        per_shelf = vault.shelves.policies(caller)
        data = {"caller": caller.name, "policy": base.model_dump(mode="json"), "shelves": per_shelf}
    if json_out:
        emit_json(data)
        return
    console.print(
        styled(
            "[bold]{name}[/bold]: policy {policy} ({mode})",
            name=caller.name,
            policy=base.name,
            mode=base.mode,
        )
    )
    console.print(f"  identifying: {', '.join(base.identifying) or 'none'}")
    console.print(f"  threshold {base.threshold}; NER {'on' if base.ner else 'off'}")
    for shelf, name in per_shelf.items():
        console.print(f"  shelf {shelf}: {name}")


@pii_app.command("scan")
def pii_scan(text: TextArgument, json_out: JsonOption = False) -> None:
    """Print the PII spans the detector finds in TEXT."""
    body = read_text_argument(text)
    with opened() as vault:
        spans = vault.pii.scan(body, caller=OWNER)
    rows: list[dict[str, Any]] = [
        {
            "start": s.start,
            "end": s.end,
            "kind": s.kind,
            "score": round(s.score, 3),
            "source": s.source,
            "text": body[s.start : s.end],
        }
        for s in spans
    ]
    if json_out:
        emit_json({"spans": rows})
        return
    table = Table("kind", "text", "score", "source", "at")
    for item in rows:
        table.add_row(
            item["kind"],
            item["text"],
            f"{item['score']:.2f}",
            item["source"],
            f"{item['start']}–{item['end']}",
        )
    console.print(table)


@pii_app.command("redact")
def pii_redact(
    text: TextArgument,
    policy: Annotated[str, typer.Option("--policy", help="Policy name.")] = "standard",
    json_out: JsonOption = False,
) -> None:
    """Print TEXT as an agent under --policy would see it."""
    body = read_text_argument(text)
    with opened() as vault:
        gated = vault.pii.redact(body, caller=OWNER, policy=policy)
    if json_out:
        emit_json(
            {
                "text": gated.text,
                "policy": gated.policy,
                "held_back": gated.held_back,
                "withheld": gated.withheld,
            }
        )
    else:
        console.print(gated.text, highlight=False, markup=False)


@pii_app.command("mark")
def pii_mark(
    target: Annotated[str, typer.Argument(help="A document id or node id.")],
    value: Annotated[str, typer.Argument(help="The value to treat as PII.")],
    kind: Annotated[str, typer.Option("--kind", help="PERSON, LOCATION, ...")] = "PERSON",
    json_out: JsonOption = False,
) -> None:
    """Treat VALUE as PII in a document (survives re-ingest; also masks it vault-wide)."""
    with opened() as vault:
        override = vault.pii.mark(target, value, caller=OWNER, kind=kind)
    _print_override(override, json_out)


@pii_app.command("unmark")
def pii_unmark(
    target: Annotated[str, typer.Argument(help="A document id or node id.")],
    value: Annotated[str, typer.Argument(help="The value that is not PII here.")],
    kind: Annotated[
        str | None,
        typer.Option("--kind", help="Only this kind (e.g. ORGANIZATION); default: every kind."),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Treat VALUE as not PII (of --kind) in a document; a mark of it must be removed first."""
    with opened() as vault:
        override = vault.pii.unmark(target, value, caller=OWNER, kind=kind)
    _print_override(override, json_out)


def _print_override(override: object, json_out: bool) -> None:
    from dataclasses import asdict

    data = asdict(override)  # type: ignore[call-overload]
    if json_out:
        emit_json(data)
    else:
        console.print(
            f"{data['action']}ed {data['value']!r} ({data['kind']}) in "
            f"{data['node_id'] or data['doc_id']} — override {data['id']}",
            highlight=False,
        )


@pii_app.command("overrides")
def pii_overrides(
    target: Annotated[str | None, typer.Argument(help="A document or node id.")] = None,
    json_out: JsonOption = False,
) -> None:
    """List the owner's PII overrides."""
    from dataclasses import asdict

    with opened() as vault:
        found = vault.pii.overrides(caller=OWNER, target=target)
    if json_out:
        emit_json({"overrides": [asdict(item) for item in found]})
        return
    table = Table("id", "action", "kind", "value", "document", "node")
    for item in found:
        table.add_row(
            str(item.id), item.action, item.kind, item.value, item.doc_id, item.node_id or ""
        )
    console.print(table)


@pii_app.command("rescan")
def pii_rescan(json_out: JsonOption = False) -> None:
    """Re-scan every text whose spans came from an older detector or older known names."""
    with opened() as vault:
        done = vault.pii.rescan(caller=OWNER)
    if json_out:
        emit_json(done.to_dict())
    else:
        console.print(
            f"re-scanned {done.sections} texts and {done.statements} statements "
            f"(detector {done.detector_version})"
        )


def register(app: typer.Typer) -> None:
    """Add `policy` and `pii` to the app."""
    app.add_typer(policy_app, name="policy")
    app.add_typer(pii_app, name="pii")
