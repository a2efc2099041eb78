"""Moving the vault between devices: export, import, sync (owner only; no MCP tool).

The bundle secret is PRIVAULT_SYNC_PASSPHRASE, else a prompt (typed twice for an export),
or with --vault-key the key of the encrypted vault itself (PRIVAULT_KEY or the keyring);
every device that reads a bundle needs the same secret.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from privault.caller import Caller
from privault.errors import InputError, utf8_text
from privault.interfaces import config
from privault.interfaces.cli.common import JsonOption, console, emit_json, number, opened
from privault.interfaces.cli.terminal import styled
from privault.sync.merge import MAX_AHEAD_MS
from privault.vault.sync_results import ExportReport, ImportReport

PASSPHRASE_ENV = "PRIVAULT_SYNC_PASSPHRASE"
VaultKeyOption = Annotated[
    bool,
    typer.Option(
        "--vault-key",
        help="Use the encrypted vault's own key (PRIVAULT_KEY or the keyring) as the secret.",
    ),
]


def bundle_secret(*, vault_key: bool, confirm: bool) -> str:
    """The secret bundles are sealed with: the vault key, the environment, or a prompt."""
    if vault_key:
        key = config.vault_key(config.vault_path())
        if not key:
            raise InputError("--vault-key: this vault has no key (it is not encrypted)")
        return key
    found = os.environ.get(PASSPHRASE_ENV)
    if found:
        return utf8_text(found, PASSPHRASE_ENV)
    secret: str = typer.prompt(
        "Bundle passphrase", hide_input=True, confirmation_prompt=confirm, err=True
    )
    if not secret:
        raise InputError(f"a bundle needs a passphrase (or set {PASSPHRASE_ENV})")
    return utf8_text(secret, "the passphrase")


def export(
    file: Annotated[
        Path | None, typer.Argument(help="The bundle file to write (not with --markdown).")
    ] = None,
    since: Annotated[
        int,
        typer.Option(
            "--since",
            help="Only changes after this cursor (printed by export).",
            parser=number,
        ),
    ] = 0,
    markdown: Annotated[
        Path | None,
        typer.Option("--markdown", help="Write one .md per document into this folder instead."),
    ] = None,
    vault_key: VaultKeyOption = False,
    json_out: JsonOption = False,
) -> None:
    """Write an encrypted bundle of the vault (or only what changed since a cursor).

    With --markdown DIR: readable files instead, one per document with YAML front matter,
    and the statements as tables (`privault add DIR` takes the documents back)."""
    if (file is None) == (markdown is None):
        raise InputError("give a bundle FILE, or --markdown DIR")
    if markdown is not None:
        with opened() as vault:
            written = vault.sync.export_markdown(markdown, caller=Caller.owner())
        if json_out:
            emit_json(written.to_dict())
        else:
            console.print(
                f"wrote {written.documents} document(s) and {written.statements} statement(s)"
                f" to {written.folder}"
            )
        return
    assert file is not None
    secret = bundle_secret(vault_key=vault_key, confirm=True)
    with opened() as vault:
        report = vault.sync.export(file, secret=secret, caller=Caller.owner(), since=since)
    if json_out:
        emit_json(report.to_dict())
        return
    console.print(
        f"wrote {report.rows} row(s), {report.bytes:,} bytes, to {report.path}\n"
        f"cursor {report.cursor}: next time `privault export FILE --since {report.cursor}`"
    )
    _clock_ahead(report)


def import_(
    file: Annotated[Path, typer.Argument(help="A bundle written by `privault export`.")],
    vault_key: VaultKeyOption = False,
    json_out: JsonOption = False,
) -> None:
    """Merge a bundle into the vault, row by row (importing twice changes nothing).

    A damaged, truncated or newer bundle, or a wrong passphrase, is refused whole; a row
    outside the bounds a local write keeps is refused alone and named."""
    secret = bundle_secret(vault_key=vault_key, confirm=False)
    with opened() as vault:
        report = vault.sync.import_bundle(file, secret=secret, caller=Caller.owner())
    if json_out:
        emit_json(report.to_dict())
        return
    applied = ", ".join(f"{kind} {count}" for kind, count in report.applied.items()) or "nothing"
    console.print(
        f"{report.rows} row(s) from {report.device}: applied {applied}; "
        f"{report.unchanged} already here, {report.forgotten} of forgotten documents, "
        f"{report.waiting} waiting for rows not yet imported"
    )
    _not_merged(report, indent="")


def sync(
    folder: Annotated[
        Path, typer.Argument(help="A folder every device sees (Syncthing, a drive).")
    ],
    vault_key: VaultKeyOption = False,
    json_out: JsonOption = False,
) -> None:
    """Write this device's changes into FOLDER and merge the other devices' changes.

    Never copies the vault file itself. `privault serve --sync FOLDER` does this on a
    schedule."""
    secret = bundle_secret(vault_key=vault_key, confirm=False)
    with opened() as vault:
        report = vault.sync.sync(folder, secret=secret, caller=Caller.owner())
    if json_out:
        emit_json(report.to_dict())
        return
    wrote = f"wrote {report.written.rows} row(s)" if report.written else "nothing new to write"
    console.print(f"device {report.device}: {wrote}; read {len(report.imported)} file(s)")
    if report.written:
        _clock_ahead(report.written)
    for item in report.imported:
        console.print(f"  {item.path}: {sum(item.applied.values())} row(s) applied")
        if item.kept_stricter:
            shelves = ", ".join(item.kept_stricter)
            console.print(f"    kept the stricter access settings of shelf {shelves}")
        _not_merged(item, indent="    ")
    for path, reason in report.refused:
        console.print(
            styled(
                "  [yellow]refused[/yellow] {path}: {reason} (tried again next sync)",
                path=path,
                reason=reason,
            )
        )


def _clock_ahead(report: ExportReport) -> None:
    """Say so when this device's clock runs ahead: the other devices hold what it wrote."""
    if report.clock_ahead_ms > MAX_AHEAD_MS:
        hours = report.clock_ahead_ms / 3_600_000
        console.print(
            styled(
                "[yellow]this device's clock is {hours} h ahead of its time[/yellow]: other "
                "devices hold the rows it writes until their time reaches them. Set the "
                "system clock right; changes already stamped ahead stay so until that time.",
                hours=f"{hours:,.1f}",
            )
        )


def _not_merged(report: ImportReport, *, indent: str) -> None:
    """Rows another device sent that wait for this device's time to reach their clock, and
    rows this vault refused on their own (the rest merged)."""
    if report.ahead:
        console.print(
            styled(
                indent + "[yellow]{count} row(s) waiting[/yellow]: their clock is more than an "
                "hour ahead of this device's; they merge at a later import, once this "
                "device's time reaches them (check both devices' clocks)",
                count=report.ahead,
            )
        )
    for line in report.refused_rows:
        console.print(styled(indent + "[yellow]refused[/yellow] {line}", line=line))


def register(app: typer.Typer) -> None:
    """Add the commands to the app."""
    app.command()(export)
    app.command("import")(import_)
    app.command()(sync)
