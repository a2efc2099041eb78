"""Reading files: each bad input is one clear InputError."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from privault.encodings import decode_file
from privault.errors import InputError
from privault.retrieval.extract import extract_file

HTML = """<html><head><title>Trip notes</title></head><body>
<nav>Home | About | Login</nav>
<article><h1>Lisbon in May</h1><p>We stayed three nights near the river and ate grilled
sardines every evening. The tram up to the castle was the highlight of the trip, and the
view over the red roofs at sunset was worth the queue.</p>
<h2>Costs</h2><p>The hotel cost 420 euros for three nights including breakfast, which felt
fair for the location right next to the old town.</p></article>
<footer>Copyright 2026</footer></body></html>"""


def _pdf(text: str) -> bytes:
    """A minimal one-page PDF with a text stream, written by hand (no PDF writer needed)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def test_markdown_title_from_heading(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text("# Garden plan\n\nTomatoes by the fence.")
    extracted = extract_file(path)
    assert extracted.title == "Garden plan"
    assert "Tomatoes" in extracted.text


def test_html_main_text_without_boilerplate(tmp_path: Path) -> None:
    path = tmp_path / "trip.html"
    path.write_text(HTML)
    extracted = extract_file(path)
    assert extracted.title == "Trip notes"
    assert "grilled" in extracted.text and "sardines" in extracted.text
    assert "Login" not in extracted.text
    assert "Costs" in extracted.text


_PROSE = (
    "<p>We stayed three nights near the river and ate grilled sardines every evening. The "
    "tram up to the castle was the highlight of the trip, and the view over the red roofs "
    "at sunset was worth the queue.</p>"
)


@pytest.mark.parametrize(
    ("head", "body", "title"),
    [
        # Entities are decoded: the PII scan reads the title as any reader does.
        ("<title>Mail jdoe1984&#64;gmail&#46;com now</title>", "", "Mail jdoe1984@gmail.com now"),
        ("<title>Call +44&#32;20&#32;7946&#32;0958</title>", "", "Call +44 20 7946 0958"),
        ("<title>Tom &amp; Jerry&#39;s &eacute;clair</title>", "", "Tom & Jerry's éclair"),
        ("<title>\n  Trip\tnotes\n</title>", "", "Trip notes"),
        # Only the page's own title element counts.
        ("<script>var t = '<title>Fake</title>';</script><title>Trip</title>", "", "Trip"),
        ("<!-- <title>Old name</title> --><title>Trip</title>", "", "Trip"),
        ("", "<svg><title>Icon</title></svg>", None),  # a tooltip: the file name is used
    ],
)
def test_html_title(tmp_path: Path, head: str, body: str, title: str | None) -> None:
    path = tmp_path / "page.html"
    path.write_text(f"<html><head>{head}</head><body>{body}{_PROSE}</body></html>")
    assert extract_file(path).title == (title or str(path))


def test_pdf_text(tmp_path: Path) -> None:
    path = tmp_path / "invoice.pdf"
    path.write_bytes(_pdf("Invoice 4471 total 312 euros"))
    assert "Invoice 4471" in extract_file(path).text


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("blob.txt", b"\x00\x01\x02binary", "binary"),
        ("empty.md", b"   \n", "empty"),
        # Russian in its own 8-bit encoding: every letter reads as an accented Latin one.
        ("koi8.txt", "Привет, как дела? Встреча в пятницу.".encode("koi8-r"), "windows-1252"),
        ("control.txt", b"caf\xe9 \x1b[31m" * 3, "windows-1252"),  # no editor writes these
        ("undefined.txt", b"caf\xe9 \x81", "windows-1252"),  # a byte it leaves undefined
        # Polish in its own encoding: its letters land in windows-1252 as ¿ and ³ in words.
        ("polish.txt", "Zażółć gęślą jaźń, spotkanie w piątek.".encode("cp1250"), "windows-1252"),
        ("late-nul.txt", b"plain text " * 1000 + b"\x00", "binary"),
        ("image.png", b"\x89PNG....", "unsupported"),
        ("broken.pdf", b"%PDF-1.4 garbage", "PDF"),
    ],
)
def test_bad_files(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        extract_file(path)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("bom.txt", "\ufeffCafé Zoë: résumé due Friday.".encode()),
        ("notepad.txt", "Café Zoë: résumé due Friday.".encode("utf-16")),  # with its BOM
        ("windows.txt", "Café Zoë: résumé due Friday – “soon”.".encode("cp1252")),
        ("cut.txt", "Café Zoë: résumé due Friday. Ñ".encode()[:-1]),  # cut mid-character
        ("utf32.txt", "Café Zoë: résumé due Friday.".encode("utf-32")),  # with its BOM
        (
            "stale.html",
            '<meta charset="iso-8859-1"><p>Café Zoë: résumé due Friday. '.encode()
            + b"The rest of this page is long enough to be its main text.</p>",
        ),
        (
            "page.html",
            '<html><head><meta charset="iso-8859-15"><title>Zoë</title></head>'
            "<body><p>Café Zoë: résumé due Friday. €5 deposit paid at the counter.</p>"
            "</body></html>".encode("iso-8859-15"),
        ),
    ],
)
def test_text_in_older_encodings_is_read(tmp_path: Path, name: str, content: bytes) -> None:
    """Files from Windows editors and old pages: a byte order mark, an HTML page's declared
    charset, Western text in windows-1252."""
    path = tmp_path / name
    path.write_bytes(content)
    text = extract_file(path).text
    assert "Café Zoë: résumé due Friday" in text and "\ufeff" not in text
    assert text.count("\ufffd") == (name == "cut.txt")  # the cut character alone is lost


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("Café at noon Ñ".encode()[:-1], "Café at noon \ufffd"),  # cut, nothing else lost
        # Windows-1252 whose only letter beyond ASCII ends the file: a letter, not a cut.
        ("Meeting notes for José".encode("cp1252"), "Meeting notes for José"),
        ("Rendez-vous au café".encode("cp1252"), "Rendez-vous au café"),
        (b"\xef\xbb\xbfCaf\xc3\xa9 \xff ok", "Café \ufffd ok"),  # a UTF-8 mark, a bad byte
        ("¿Qué?".encode("cp1252"), "¿Qué?"),  # too short to judge by its letters
        ("Café au lait\r\n".encode("cp1252") + b"\x1a", "Café au lait\r\n"),  # DOS's end mark
        ("La col·lecció és gran, I don´t know.".encode("cp1252"), None),  # read as written
    ],
)
def test_edge_cases_of_reading_a_file(content: bytes, expected: str | None) -> None:
    decoded = decode_file(content)
    assert decoded is not None
    assert decoded[0] == (expected if expected is not None else content.decode("cp1252"))


def test_oversized_and_missing(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("x" * 5000)
    with pytest.raises(InputError, match="over the 1000-byte limit"):
        extract_file(big, max_bytes=1000)
    with pytest.raises(InputError, match="no such file"):
        extract_file(tmp_path / "missing.md")


def test_a_damaged_pdf_is_one_line_of_privault_s_not_pypdf_s_too(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cut.pdf"
    path.write_bytes(b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n")  # no trailer, no %%EOF
    with caplog.at_level(logging.WARNING), pytest.raises(InputError, match="unreadable PDF"):
        extract_file(path)
    assert [r.getMessage() for r in caplog.records if r.name.startswith("pypdf")] == []
