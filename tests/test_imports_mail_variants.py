"""Mail as real mailers and mailbox writers vary it: charset labels that understate what
the text holds (or overstate it: UTF-8 labelled ASCII), HTML tables, mail with no Date,
separators of several shapes, CRLF mailboxes; and a vault that imported such mail before
reading it again."""

from __future__ import annotations

import base64
import hashlib
import io
import random
import re
from pathlib import Path
from typing import Any

import pytest

from privault.caller import Caller
from privault.imports import Page, items, mail_text, mbox
from privault.imports.mail_separators import begins_message_at
from tests.helpers import fake_vault

OWNER = Caller.owner()


def _mailbox(*mails: tuple[bytes, bytes, bytes], eol: bytes = b"\n") -> bytes:
    """An mbox of (separator line, headers, body) as mailbox writers lay it out: each
    message after its separator and ended by a blank line."""
    out = b""
    for separator, headers, body in mails:
        written = separator + b"\n" + headers + b"\n" + body
        written += b"\n" if written.endswith(b"\n") else b"\n\n"
        out += written.replace(b"\n", eol)
    return out


def _page(raw: bytes, separator: bytes = b"") -> Page:
    page = mbox.message(raw, "message 1", separator=separator)
    assert isinstance(page, Page), page
    return page


def _word(text: str, charset: str, codec: str) -> str:
    return f"=?{charset}?B?{base64.b64encode(text.encode(codec)).decode()}?="


QUOTES = "We don\u2019t meet \u2013 \u20ac10"  # ’ – €: 0x92 0x96 0x80 in windows-1252


# ---- charsets read as browsers read them ------------------------------------------


@pytest.mark.parametrize("label", ["iso-8859-1", "us-ascii", "latin1", "ISO-8859-1"])
def test_a_latin1_or_ascii_label_reads_windows_1252_quotes(label: str) -> None:
    raw = f"Subject: q\nContent-Type: text/plain; charset={label}\n\n".encode()
    page = _page(raw + QUOTES.encode("cp1252") + b"\n")
    assert QUOTES in page.text
    assert not any("\x80" <= ch <= "\x9f" for ch in page.text)


def test_utf8_labelled_ascii_is_read_as_utf8() -> None:
    # Scripts and lists send UTF-8 labelled us-ascii: read literally it failed and fell
    # back to UTF-8; read as windows-1252 it would store "GrÃ¼ÃŸe".
    words = "Grüße, José – café"
    subject = _word(words, "us-ascii", "utf-8")
    raw = f"Subject: {subject}\nContent-Type: text/plain; charset=us-ascii\n\n"
    page = _page(raw.encode() + words.encode("utf-8") + b"\n")
    assert page.title == words and words in page.text


@pytest.mark.parametrize("label", ["iso-8859-1", "windows-1252"])
def test_latin1_text_that_happens_to_be_valid_utf8_is_kept(label: str) -> None:
    # "É®" is C9 AE in windows-1252, and C9 AE is also UTF-8 for "ɮ": a label that says
    # Latin-1 is not second-guessed.
    words = "NESCAFÉ® at the CAFÉ™"
    raw = f"Subject: {_word(words, label, 'cp1252')}\nContent-Type: text/plain; charset={label}\n\n"
    page = _page(raw.encode() + words.encode("cp1252") + b"\n")
    assert page.title == words and words in page.text


def test_shift_jis_holds_the_characters_browsers_read_in_it() -> None:
    words = "①会議 ㈱山田"  # NEC extensions: cp932, which is how browsers read Shift_JIS
    raw = b"Subject: s\nContent-Type: text/plain; charset=shift_jis\n\n"
    assert words in _page(raw + words.encode("cp932") + b"\n").text


def test_a_label_only_browsers_know_identifies_the_mail_as_first_read() -> None:
    # "iso-8859-8-i" has no codec here: the earlier import read such a body as Latin-1, and
    # a mail whose identity came from the better reading was kept beside it as a copy.
    hebrew = "שלום לכולם".encode("iso-8859-8")
    raw = b"Subject: s\nDate: d\nFrom: f\nContent-Type: text/plain; charset=iso-8859-8-i\n\n"
    page = _page(raw + hebrew)
    assert "שלום לכולם" in page.text
    first = hebrew.decode("latin-1")
    assert page.identity == hashlib.sha256("\x00".join(("f", "d", "s", first)).encode()).hexdigest()


def test_gb2312_labelled_text_keeps_its_gbk_characters() -> None:
    body = base64.encodebytes("你好，朱镕基 喆\n".encode("gbk"))
    raw = (
        f"Subject: {_word('朱镕基', 'gb2312', 'gbk')}\nFrom: {_word('王先生', 'gb2312', 'gbk')}"
        " <wang@example.cn>\nContent-Type: text/plain; charset=gb2312\n"
        "Content-Transfer-Encoding: base64\n\n"
    ).encode() + body
    page = _page(raw)
    assert page.title == "朱镕基"
    assert "From: 王先生 <wang@example.cn>" in page.text and "你好，朱镕基 喆" in page.text


def test_hebrew_labelled_by_direction_and_latin1_words_in_headers() -> None:
    subject = _word("שלום", "iso-8859-8-i", "iso-8859-8") + " " + _word("’", "iso-8859-1", "cp1252")
    page = _page(f"Subject: {subject}\n\nbody\n".encode())
    assert page.title == "שלום’"


# ---- HTML ---------------------------------------------------------------------------


def test_html_cells_are_words_apart_and_lists_quotes_rules_are_blocks() -> None:
    html = (
        "<table><tbody><tr><th>Item</th><th>Price</th></tr>"
        "<tr><td>Jar</td><td>€4</td></tr></tbody></table>"
        "<ul><li>one</li><li>two</li></ul>before<hr>after"
        "<blockquote>quoted</blockquote>end"
    )
    lines = [line for line in mail_text.html_text(html).splitlines() if line]
    assert lines == ["Item Price", "Jar €4", "one", "two", "before", "after", "quoted", "end"]


# ---- dates --------------------------------------------------------------------------

NO_DATE = b"Subject: undated\nFrom: shop@example.com\n\nbody\n"


@pytest.mark.parametrize(
    ("separator", "expected"),
    [
        (b"From 1234@xxx Wed Mar 06 08:30:00 +0000 2019", "2019-03-06T08:30:00"),  # Gmail
        (b"From a@b Mon Mar  4 10:00:00 2019", "2019-03-04T10:00:00"),  # asctime
        (b"From a@b Mon Mar  4 10:00:00 2019 +0100", "2019-03-04T09:00:00"),
        (b"From - Tue Mar 05 12:34:56 2019\r", "2019-03-05T12:34:56"),  # Thunderbird, CRLF
    ],
)
def test_a_mail_without_date_is_dated_by_its_separator(separator: bytes, expected: str) -> None:
    from datetime import UTC, datetime

    page = _page(NO_DATE, separator)
    assert page.created_at is not None
    assert datetime.fromtimestamp(page.created_at / 1000, UTC).isoformat()[:19] == expected


def test_then_by_its_oldest_received_header(tmp_path: Path) -> None:
    received = (
        b"Received: from b by c; Tue, 5 Mar 2019 10:00:05 +0000\n"
        b"Received: from a by b;\n Tue, 5 Mar 2019 11:00:00 +0100\n"
    )
    path = tmp_path / "Inbox"
    path.write_bytes(
        _mailbox(
            (b"From - Thu Jan  1 00:00:00 1970", received + NO_DATE.split(b"\n\n")[0], b"body\n")
        )
    )
    (page,) = [item for item in mbox.read(path) if isinstance(item, Page)]
    assert page.created_at == 1551780000000  # 2019-03-05 10:00:00 UTC
    assert _page(NO_DATE).created_at is None  # nothing to go by: dated when imported


# ---- separators -------------------------------------------------------------------

HEAD = b"Message-ID: <%d@x>\nDate: Sat, 6 Jan 2024 10:00:00 +0000\nSubject: mail %d\n"


def _heads(number: int) -> bytes:
    return HEAD % (number, number)


def test_bare_from_separators_before_headers_still_split(tmp_path: Path) -> None:
    path = tmp_path / "Inbox"
    path.write_bytes(
        _mailbox(
            (b"From - Sat Jan  6 10:00:00 2024", _heads(1), b"one\n"),
            (b"From ", _heads(2), b"two\n"),
            (b"From someone@example.com", _heads(3), b"three\n"),
            eol=b"\r\n",
        )
    )
    assert [getattr(item, "title", item) for item in mbox.read(path)] == [
        "mail 1",
        "mail 2",
        "mail 3",
    ]


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
@pytest.mark.parametrize(
    "line",
    [
        b"From what I heard, the hive came through the winter.",
        b"From 10:30 to 11:00 on Sat Jan 6 we checked every frame.",  # a date, and words
        b"From me, with love",
        b"From Lisbon",  # "From sender": a separator only before header lines
    ],
)
def test_a_body_line_starting_from_stays_in_its_message(
    tmp_path: Path, line: bytes, eol: bytes
) -> None:
    # Written unquoted, as mboxo writers and some exporters leave such a line.
    body = b"Hi Ana,\n\n" + line + b"\nP.S.: the honey is ready.\n\nbye\n"
    path = tmp_path / "Inbox"
    path.write_bytes(
        _mailbox(
            (b"From a@b Sat Jan  6 10:00:00 2024", _heads(1), body),
            (b"From a@b Sat Jan  6 11:00:00 2024", _heads(2), b"second\n"),
            eol=eol,
        )
    )
    first, second = list(mbox.read(path))
    assert isinstance(first, Page) and isinstance(second, Page)
    assert f"Hi Ana,\n\n{line.decode()}\nP.S.: the honey is ready.\n\nbye" in first.text
    assert second.title == "mail 2" and "second" in second.text


@pytest.mark.parametrize(
    "postmark",
    [
        b"From alice@example.org Mon Jan  1 00:00:00 2024",
        b"From MAILER-DAEMON Fri Jul  8 12:08:34 2011",
        b"From 1234@xxx Wed Mar 06 08:30:00 +0000 2019",  # Gmail
        b"From - Tue Mar 05 12:34:56 2019",  # Thunderbird
        b"From a@b Mon Mar  4 10:00:00 2019 +0100",
        b"From a@b Mon Mar  4 10:00 PST 2019",
        b"From a@b Mon, 4 Mar 2019 10:00:00 +0100",
        b"From a@b Mon Mar  4 10:00:00 2019 remote from relay",  # UUCP
    ],
)
def test_a_postmark_begins_the_next_message(tmp_path: Path, postmark: bytes) -> None:
    path = tmp_path / "Inbox"
    path.write_bytes(
        _mailbox(
            (b"From a@b Sat Jan  6 10:00:00 2024", _heads(1), b"Hi,\n\nFrom what I heard, ok.\n"),
            (postmark, _heads(2), b"two\n"),
            (b"From a@b Sat Jan  6 12:00:00 2024", _heads(3), b"three\n"),
        )
    )
    titles = [getattr(item, "title", item) for item in mbox.read(path)]
    assert titles == ["mail 1", "mail 2", "mail 3"]


def test_a_quoted_from_line_stays_and_loses_one_quote(tmp_path: Path) -> None:
    body = b"Forwarded:\n\n>From the archive, as the writer quoted it.\n>>From a quote's quote.\n"
    path = tmp_path / "Inbox"
    path.write_bytes(
        _mailbox(
            (b"From a@b Sat Jan  6 10:00:00 2024", _heads(1), body),
            (b"From a@b Sat Jan  6 11:00:00 2024", _heads(2), b"second\n"),
        )
    )
    raw, _ = mbox.messages(path)
    assert isinstance(raw, bytes) and raw.endswith(body)  # the mail's bytes as written
    first, second = list(mbox.read(path))
    assert isinstance(first, Page) and isinstance(second, Page)
    assert "\nFrom the archive, as the writer quoted it.\n>From a quote's quote." in first.text
    assert second.title == "mail 2"


@pytest.mark.parametrize("block", [6, 7, 13, 1 << 20])
def test_separators_are_judged_alike_wherever_the_search_blocks_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    # Each "From " line judged with the whole file around it, against the block search
    # (which judges a line in its block, or reads it again when the block ends too soon).
    monkeypatch.setattr(mbox, "_SCAN_BYTES", block)
    pieces = [
        b"From a@b Mon Mar  1 10:00:00 2025\n",
        b"From \n",
        b"From what I heard\n",
        b"From x@y\n",
        b"\nFrom x@y\nSubject: s\n",
        b"Subject: s\n",
        b"Subject : s\n",
        b" folded\n",
        b"\n",
        b"\r\n",
        b"body line\n",
        b">From quoted\n",
        b"From",
    ]
    rng = random.Random(block)
    path = tmp_path / "mail.mbox"
    for _ in range(300):
        data = pieces[0] + b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        path.write_bytes(data)
        lines = [found.start() for found in re.finditer(rb"^From ", data, re.MULTILINE)]
        starts = [0] + [at for at in lines[1:] if begins_message_at(io.BytesIO(data), at)]
        in_text = [at for at in lines if at not in starts]
        assert mbox._offsets(path) == (starts, in_text), data


def _cut_at_every_from_line(file: Path) -> tuple[list[int], list[int]]:
    """Where privault cut messages before it told body lines from separators."""
    data = file.read_bytes()
    return [found.start() for found in re.finditer(rb"^From ", data, re.MULTILINE)], []


def test_a_mail_an_earlier_import_split_is_updated_whole_not_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "Inbox"
    path.write_bytes(
        _mailbox(
            (
                b"From a@b Sat Jan  6 10:00:00 2024",
                _heads(1),
                b"Hi,\n\nFrom what I heard, ok.\nA\n",
            ),
            (b"From a@b Sat Jan  6 11:00:00 2024", b"Subject: no id\n", b"From me, bye\nB\n"),
        )
    )
    with fake_vault(tmp_path / "v.db") as vault:
        monkeypatch.setattr(mbox, "_offsets", _cut_at_every_from_line)
        assert vault.import_from("mbox", path, caller=OWNER).total("added") == 4
        monkeypatch.undo()
        again = vault.import_from("mbox", path, caller=OWNER)
        assert (again.total("added"), again.total("updated")) == (0, 2)
        assert len(again.gone) == 2  # the pieces cut off: listed as deleted, and pruned
        assert vault.import_from("mbox", path, caller=OWNER, prune=True).pruned == 2
        rows = vault.conn.execute("SELECT body FROM documents WHERE current").fetchall()
        texts = sorted(row[0] for row in rows)
        assert len(texts) == 2
        assert "Hi,\n\nFrom what I heard, ok.\nA" in texts[0] and "From me, bye\nB" in texts[1]


# ---- CRLF ---------------------------------------------------------------------------


def test_a_crlf_mailbox_keeps_no_carriage_returns(tmp_path: Path) -> None:
    eight_bit = b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n"
    path = tmp_path / "Inbox"
    path.write_bytes(
        _mailbox(
            (b"From a@b Sat Jan  6 10:00:00 2024", _heads(1) + eight_bit, "Grüße\nline\n".encode()),
            eol=b"\r\n",
        )
    )
    (page,) = list(mbox.read(path))
    assert isinstance(page, Page) and "\r" not in page.text and "Grüße\nline" in page.text


# ---- importing again ----------------------------------------------------------------


def _variants() -> bytes:
    latin = b"Content-Type: text/plain; charset=iso-8859-1\n"
    html = b"Content-Type: text/html; charset=utf-8\n"
    crlf = b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n"
    undated = f"Subject: {_word('שלום', 'iso-8859-8-i', 'iso-8859-8')}\n".encode()
    return _mailbox(
        (b"From a@b Mon Jan  1 10:00:00 2024", _heads(1) + latin, QUOTES.encode("cp1252")),
        (b"From a@b Mon Jan  1 11:00:00 2024", _heads(2) + html, b"<td>Item</td><td>Price</td>"),
        (b"From a@b Mon Jan  1 12:00:00 2024", _heads(3) + crlf, b"one\r\ntwo\r\n"),
        (b"From a@b Mon Jan  1 13:00:00 2024", undated, b"no id, no date\n"),  # a content key
    )


def test_a_mail_is_identified_as_first_read() -> None:
    # Its identity and key come from the text as labelled (an earlier import's), not the
    # better reading, so a vault that holds it knows it when it reads it again.
    raw = b"Subject: s\nDate: d\nFrom: f\nContent-Type: text/plain; charset=iso-8859-1\n\n"
    page = _page(raw + QUOTES.encode("cp1252") + b"\r\nmore")
    first = QUOTES.encode("cp1252").decode("latin-1") + "\r\nmore"
    assert page.identity == hashlib.sha256("\x00".join(("f", "d", "s", first)).encode()).hexdigest()


def test_mail_imported_before_is_updated_not_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "Inbox"
    path.write_bytes(_variants())
    with fake_vault(tmp_path / "v.db") as vault:
        # As privault read mail before: charsets as labelled, CRs kept, fewer HTML blocks.
        for name in ("part_text", "header_text", "html_text"):
            monkeypatch.setattr(mbox, name, _as_first(getattr(mbox, name)))
        assert vault.import_from("mbox", path, caller=OWNER).total("added") == 4
        monkeypatch.undo()
        assert vault.import_from("mbox", path, caller=OWNER).total("skipped") == 4

        monkeypatch.setattr(items, "RAW_READERS", items.RAW_READERS + 1)  # readers improved
        report = vault.import_from("mbox", path, caller=OWNER)
        assert (report.total("added"), report.total("updated")) == (0, 4)
        assert vault.import_from("mbox", path, caller=OWNER).total("skipped") == 4
        rows = vault.conn.execute("SELECT body FROM documents WHERE current").fetchall()
        texts = [row[0] for row in rows]
        assert len(texts) == 4
        assert any(QUOTES in text for text in texts) and any("Item Price" in t for t in texts)
        assert any("# שלום" in text for text in texts) and not any("\r" in t for t in texts)


def _as_first(reader: Any) -> Any:
    return lambda *args, first=False, **named: reader(*args, first=True, **named)
