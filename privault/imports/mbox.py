"""Mailboxes in mbox format: Gmail Takeout's `.mbox`, Thunderbird's folder files.

The file is read one message at a time (only the offsets of the messages are held), so a
mailbox of any size streams; messages are cut where the standard library's `mailbox.mbox`
cuts them, found by a block search instead of its line-by-line read (`_offsets`), except
at a body line starting "From " that its writer left unquoted (`mail_separators`). Each
message is one page: the subject its title, its Date its date (else its mailbox's:
`mail_dates`), From/To/Cc written out as text (so the PII detector sees the addresses,
like any other text), the plain-text part preferred over HTML (`mail_text` decodes parts
and reduces HTML to its text), text attachments appended and other attachments named (their bodies
are emptied before the mail is parsed: `mail_bodies`). A calendar invitation, attached or
inline (`text/calendar`), is appended as its events (`invitations`). Replies link to the
message they answer (In-Reply-To, else the last of References); Gmail's labels become
tags. A folder is read as the mbox files in it; a link in it to a file outside it is
reported, not followed, as in the other importers. A message over `MAX_MESSAGE_BYTES` is
reported by its Message-ID, not read.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from email import policy
from email.message import Message
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from privault.imports.invitations import invitation_text
from privault.imports.items import (
    Bad,
    Item,
    Known,
    Link,
    NotThisKind,
    Page,
    Unchanged,
    clean_tags,
    content_key,
    raw_digest,
)
from privault.imports.mail_bodies import unread_bodies_emptied
from privault.imports.mail_dates import received_time, separator_time
from privault.imports.mail_separators import as_first_cut, begins_message, begins_message_at
from privault.imports.mail_text import (
    enriched_text,
    header_text,
    html_changes,
    html_text,
    label_changes,
    part_text,
)
from privault.imports.sources import (
    MAX_WHOLE_FILE_BYTES,
    folder_files,
    head,
    left_out,
    source_time,
)

KIND = "mbox"
WHAT = "an mbox mailbox (Gmail Takeout .mbox, a Thunderbird folder file)"
TEXT_ATTACHMENT_BYTES = 2 * 1024 * 1024  # a longer text attachment is named, not inlined
# A message is read whole, so it is held to what an export's file read whole is
# (`MAX_WHOLE_FILE_BYTES`), not to a note's size: its bytes carry its attachments (base64,
# a third larger than the files), which mail services take to 25-50 MB and which are named,
# not kept, so a mail far larger than any note still yields a note's worth of text.
MAX_MESSAGE_BYTES = MAX_WHOLE_FILE_BYTES
_HEAD_BYTES = 64 * 1024  # read of a message too large to read: where its Message-ID is
# compat32: the default policy's header objects cost most of a mail's parse; headers are
# decoded here (RFC 2047) and the parts chosen by walking them.
_PARSER = BytesParser(policy=policy.compat32)
_MSGID = re.compile(r"<[^<>\s]+>")
# mbox writers quote a body line starting "From " as ">From " (and ">From " as ">>From ").
_FROM_QUOTED = re.compile(rb"^>(>*From )", re.MULTILINE)


_FROM_LINE = re.compile(rb"^From \S+ .*\d{2}:\d{2}(:\d{2})?.*$")


def looks_like(path: Path) -> bool:
    """Whether `path` is an mbox file: it starts with a `From sender date` line (a note
    that starts with the word "From" does not)."""
    if not path.is_file():
        return False
    first = head(path, 1024).split(b"\n", 1)[0].rstrip(b"\r")
    return bool(_FROM_LINE.match(first))


def mailbox_files(path: Path) -> list[Path | Bad]:
    """`path` itself, or the mbox files in a folder (Thunderbird's `.msf` indexes left out),
    and a `Bad` for each link in the folder that is not followed: to a file outside it (not
    part of the export, and reading it would import whatever file it names), or one that
    leads nowhere (its target gone, or links in a loop). (Not looked into, so any such link
    is reported, mbox or not.)"""
    if path.is_file():
        if not looks_like(path):
            raise NotThisKind(f"not {WHAT}: {path.name} does not start with a 'From ' line")
        return [path]
    if not path.is_dir():
        raise NotThisKind(f"not {WHAT}: {path} is not a file or folder")
    files, linked = folder_files(path)
    found: list[Path | Bad] = []
    for candidate in files:
        if candidate.name.startswith("."):
            continue
        why = left_out(path, candidate, "mailbox")
        if why is not None:
            found.append(Bad(candidate.relative_to(path).as_posix(), why))
        elif looks_like(candidate):
            found.append(candidate)
    # Links not walked: one to a folder outside, or leading nowhere, is said to be so.
    for link in linked:
        why = left_out(path, link, "mailbox")
        if why is not None:
            found.append(Bad(link.relative_to(path).as_posix(), why))
    if not any(isinstance(file, Path) for file in found):
        raise NotThisKind(f"not {WHAT}: no mbox file in {path}")
    return found


def read(path: Path, known: Known | None = None) -> Iterator[Item]:
    """Each message of the mailbox (or mailboxes) at `path`, in file order (one `known`
    holds as it is comes as `Unchanged`, unparsed)."""
    for file in mailbox_files(path):
        if isinstance(file, Bad):
            yield file  # its messages unknown: what the source deleted is not told
            continue
        for number, (separator, raw, cut_before) in enumerate(_messages(file), start=1):
            where = f"{file.name} message {number}"
            if isinstance(raw, OSError):
                yield Bad(where, f"cannot read ({raw})", label="message")
                continue
            if isinstance(raw, Oversized):
                reason = f"{raw.size:,} bytes, over the {MAX_MESSAGE_BYTES:,}-byte limit; not read"
                # Still in the mailbox (by its Message-ID): not reported as deleted there.
                yield Bad(where, reason, key=_quick_id(raw.head), label="message")
                continue
            digest = raw_digest(KIND, raw)
            quick = _quick_id(raw)
            if known is not None and quick and known(quick, digest):
                yield Unchanged(quick, "message", file.name)
                continue
            found = message(raw, where, file.name, separator, cut_before)
            if isinstance(found, Page):
                found = dataclasses.replace(found, source_digest=digest)
            yield found


_SCAN_BYTES = 8 * 1024 * 1024  # read at a time while the messages are found
_FROM = b"\nFrom "
_LINE_BYTES = 1024  # a "From " line judged in its block: a separator is far shorter


def _offsets(file: Path) -> tuple[list[int], list[int]]:
    """Where each message starts: the file's start, and each line starting "From " that
    is a separator (`mail_separators`); and where the other lines starting "From " stand
    (rare: kept, so the mails privault once cut there are known without a search). The
    file is searched in blocks, which on a mailbox of gigabytes of attachments is ~10x
    faster than reading it a line at a time. A line is judged in its block by its shape;
    it is read again with the bytes around it only where the block ends within it or its
    shape leaves it open ("From sender": rare)."""
    starts: list[int] = []
    in_text: list[int] = []
    doubtful: list[int] = []
    with file.open("rb") as stream:
        carried, offset = b"\n", 0  # the file's start is a line's start
        while block := stream.read(_SCAN_BYTES):
            data, base = carried + block, offset - len(carried)
            found = data.find(_FROM)
            while found >= 0:
                start = base + found + 1
                end = data.find(b"\n", found + 1, found + 1 + _LINE_BYTES)
                begins = begins_message(data[found + 1 : end]) if end >= 0 else None
                if start == 0 or begins:
                    starts.append(start)
                else:
                    (doubtful if begins is None else in_text).append(start)
                found = data.find(_FROM, found + 1)
            # Too short to hold a whole match: none is counted twice.
            carried, offset = data[-(len(_FROM) - 1) :], offset + len(block)
        for start in doubtful:
            (starts if begins_message_at(stream, start) else in_text).append(start)
    return sorted(starts), sorted(in_text)


@dataclass(frozen=True)
class Oversized:
    """A message over `MAX_MESSAGE_BYTES`, left unread: its size, and its first bytes
    (without its `From ` line), where its Message-ID is."""

    size: int
    head: bytes


def messages(file: Path) -> Iterator[bytes | OSError | Oversized]:
    """Each message's bytes without its `From ` line, as `mailbox.mbox.get_bytes` gives them
    (so a message's digest is what it was when the standard library read the file): ended
    before the next separator (`_offsets`), less the empty line before it. A message over
    `MAX_MESSAGE_BYTES` is not read whole: only its head, as an `Oversized`."""
    for _, found, _ in _messages(file):
        yield found


def _messages(file: Path) -> Iterator[tuple[bytes, bytes | OSError | Oversized, bool]]:
    """`messages`, each beside its `From ` line (b"" where it could not be read), and
    whether a line starting "From " stands in its text (where privault once cut it)."""
    try:
        starts, in_text = _offsets(file)
        stream = file.open("rb")
    except OSError as exc:
        yield b"", exc, False
        return
    with stream:
        ends = [*starts[1:], file.stat().st_size]
        for start, end in zip(starts, ends, strict=True):
            after = bisect.bisect_right(in_text, start)
            cut_before = after < len(in_text) and in_text[after] < end
            oversized = end - start > MAX_MESSAGE_BYTES
            try:
                stream.seek(start)
                chunk = stream.read(_HEAD_BYTES if oversized else end - start)
            except OSError as exc:
                yield b"", exc, False
                continue
            line_end = chunk.find(b"\n")
            separator = chunk[:line_end] if line_end >= 0 else chunk
            if oversized:
                yield separator, Oversized(end - start, chunk[line_end + 1 :]), False
                continue
            if chunk.endswith(b"\n\n"):
                chunk = chunk[:-1]
            yield separator, chunk[line_end + 1 :] if line_end >= 0 else b"", cut_before


_QUICK_ID = re.compile(rb"^message-id:[ \t]*<([^<>\s]+)>[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)


def _quick_id(raw: bytes) -> str | None:
    """The Message-ID read from the raw header (no parsing), when it stands on one line."""
    end = raw.find(b"\n\n")
    found = _QUICK_ID.search(raw, 0, end if end >= 0 else len(raw))
    return found.group(1).decode("ascii", errors="replace") if found else None


def message(
    raw: bytes, where: str, scope: str = "", separator: bytes = b"", cut_before: bool = False
) -> Item:
    """One message (its bytes, without the mbox `From ` line `separator`) as a page;
    `cut_before`: a line starting "From " stands in its text, where privault once cut it
    (its key and identity are then formed from the mail as cut there: `as_first_cut`)."""
    try:
        parsed = _parsed(raw)
        first_cut = as_first_cut(raw) if cut_before else None
        if first_cut is not None:
            # A first cut that cannot be read was never stored: nothing to be known by.
            with contextlib.suppress(Exception):
                return _page(parsed, raw, scope, separator, first_cut)
        return _page(parsed, raw, scope, separator)
    except Exception as exc:  # noqa: BLE001 - a malformed mail is reported, never fatal
        return Bad(where, f"unreadable message ({type(exc).__name__}: {exc})", label="message")


def _parsed(raw: bytes) -> Message:
    """A message's bytes parsed, the mbox quoting of its "From " lines undone."""
    # Every quoted line holds ">From ": a search for it skips the slow line-anchored
    # pattern on the (many) mails without one.
    unquoted = _FROM_QUOTED.sub(rb"\1", raw) if b">From " in raw else raw
    return _PARSER.parsebytes(unread_bodies_emptied(unquoted))


def _header(msg: Message, name: str, *, first: bool = False) -> str:
    """A header as text: RFC 2047 words decoded, folding undone ('' when absent)."""
    value = msg.get(name)
    return header_text(value, first=first) if value is not None else ""


@dataclass
class _Reading:
    """How a mail's text is read: as now, or as privault first read it (`first`; see
    `mail_text`). Reading as now notes where the first reading would give other text."""

    first: bool = False
    changed: bool = False


def _page(
    msg: Message,
    raw: bytes,
    scope: str,
    separator: bytes = b"",
    first_cut: bytes | None = None,
) -> Page:
    """A mail as a page; `first_cut`: its bytes as privault first cut them, where that was
    shorter (`as_first_cut`)."""
    subject = _header(msg, "Subject")
    sender, to, cc = _header(msg, "From"), _header(msg, "To"), _header(msg, "Cc")
    date_text = _header(msg, "Date")
    # RFC 2822, or ISO as some mailers write it; with none, when the mailbox got it.
    sent = source_time(date_text)
    if sent is None:
        sent = separator_time(separator) or received_time(msg.get_all("Received") or [])
    own = _ids(_header(msg, "Message-ID"))
    parent = _ids(_header(msg, "In-Reply-To")) or _ids(_header(msg, "References"))[-1:]
    references = _ids(_header(msg, "References"))
    reading = _Reading()
    body, attachments = _body(msg, reading)
    # The key and identity are formed from the mail as first read, and as first cut (its
    # text ended at a body line starting "From "), so one imported before is still itself
    # (not a new item, nor kept apart as another) now it reads better.
    first_sender, first_subject = (
        _header(msg, "From", first=True),
        _header(msg, "Subject", first=True),
    )
    first_raw = raw if first_cut is None else first_cut
    if first_cut is not None:
        first_body = _body(_parsed(first_cut), _Reading(first=True))[0]
    else:
        first_body = _body(msg, _Reading(first=True))[0] if reading.changed else body
    key = (
        own[0].strip("<>")
        if own
        else content_key(
            first_sender, date_text, first_subject, hashlib.sha256(first_raw).hexdigest()
        )
    )
    title = subject or "(no subject)"
    lines = [f"# {title}", ""]
    for label, value in (("From", sender), ("To", to), ("Cc", cc), ("Date", date_text)):
        if value:
            lines.append(f"{label}: {value}  ")
    text = "\n".join(lines).rstrip() + "\n\n" + body.strip() + "\n"
    for name, content in attachments:
        text += (
            f"\n## Attachment: {name}\n\n{content.strip()}\n"
            if content
            else (f"\n[attachment: {name}]\n")
        )
    # The same mail in two folders (Inbox and a label, a Sent copy) has these alike; a
    # mail that copied another's Message-ID has not (`Page.identity`).
    identity = hashlib.sha256(
        "\x00".join((first_sender, date_text, first_subject, first_body)).encode()
    )
    metadata: dict[str, Any] = {"source_app": "mail", "message_id": key}
    if parent:
        metadata["in_reply_to"] = parent[0].strip("<>")
    thread = (references[:1] or parent[:1] or own[:1] or [f"<{key}>"])[0].strip("<>")
    metadata["thread"] = thread
    links = tuple(Link(label="in reply to", key=p.strip("<>")) for p in parent[:1])
    labels = _header(msg, "X-Gmail-Labels")
    return Page(
        key=key,
        label="message",
        title=title,
        text=text,
        created_at=sent,
        tags=clean_tags([part for part in labels.split(",") if part.strip()]) if labels else (),
        metadata=metadata,
        links=links,
        scope=scope,
        identity=identity.hexdigest(),
    )


def _ids(value: str) -> list[str]:
    return _MSGID.findall(value)


def _text_of(part: Message, reading: _Reading) -> str:
    """A text part decoded by its charset (`mail_text.part_text`)."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return str(payload or "")
    charset = part.get_content_charset()
    reading.changed = reading.changed or label_changes(charset, payload)
    return part_text(payload, charset, first=reading.first)


def _html_text(html: str, reading: _Reading) -> str:
    reading.changed = reading.changed or (not reading.first and html_changes(html))
    return html_text(html, first=reading.first)


def _body(msg: Message, reading: _Reading) -> tuple[str, list[tuple[str, str]]]:
    """The message's text (`_texts`) and its attachments as (name, text or '' when not
    text; none when read as first read, for the identity only)."""
    attached: list[Message] = []
    texts = _texts(msg, attached, reading)
    body = "\n\n".join(text.strip() for text in texts if text.strip())
    if reading.first:
        return body.replace("\x00", ""), []
    attachments: list[tuple[str, str]] = []
    for part in attached:
        name = header_text(part.get_filename() or part.get_content_type())
        inline = part.get_content_maintype() == "text" and _size(part) <= TEXT_ATTACHMENT_BYTES
        content = _text_of(part, reading) if inline else ""
        if part.get_content_subtype() == "html" and content:
            content = html_text(content)
        elif part.get_content_subtype() == "calendar" and content:
            content = invitation_text(content)
        attachments.append((name, content.replace("\x00", "")))
    return body.replace("\x00", ""), attachments


def _texts(part: Message, attached: list[Message], reading: _Reading) -> list[str]:
    """The text of `part` and of every part inside it, in order (a forwarded mail's too);
    its attachments, inline images and calendar invitations go to `attached`.

    Of alternatives (`multipart/alternative`: one text written several ways) one is read:
    the plain one, else the last that holds text (the richest, by the standard). Every other
    kind of multipart is read whole: a mail whose text is split around an image, HTML
    before and after it, keeps both halves."""
    if part.is_multipart():
        children = [child for child in part.get_payload() if isinstance(child, Message)]
        read = [_texts(child, attached, reading) for child in children]  # every alternative's files
        if part.get_content_type() != "multipart/alternative":
            return [text for texts in read for text in texts]
        written = [
            (texts, any(p.get_content_type() == "text/plain" for p in child.walk()))
            for child, texts in zip(children, read, strict=True)
            if any(text.strip() for text in texts)
        ]
        plain = [texts for texts, is_plain in written if is_plain]
        return plain[0] if plain else (written[-1][0] if written else [])
    disposition = str(part.get("Content-Disposition") or "").split(";")[0].strip().lower()
    kind = part.get_content_type()
    if disposition == "attachment" or (part.get_filename() and disposition != "inline"):
        attached.append(part)
    elif kind == "text/plain" or kind.startswith("multipart/"):
        # A multipart part that is not split into parts has no boundary to split it by (or
        # never uses it): its body is kept as text.
        return [_text_of(part, reading)]
    elif kind == "text/html":
        return [_html_text(_text_of(part, reading), reading)]
    elif kind == "text/enriched":
        return [enriched_text(_text_of(part, reading))]
    elif kind == "text/calendar" or not kind.startswith("text/"):
        attached.append(part)  # an invitation with no file name, an inline image: named
    return []  # other text (an Apple Watch alternative, …) repeats the mail's text


def _size(part: Message) -> int:
    payload = part.get_payload()
    return len(payload) if isinstance(payload, str | bytes) else 0
