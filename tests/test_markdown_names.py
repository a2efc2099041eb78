"""Markdown export file names come from one sanitising function and stay in their folder."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from privault import Caller
from privault.sync.markdown import MAX_STEM_BYTES, MarkdownDocument, file_name, safe_stem
from privault.vault.markdown_export import _write
from tests.helpers import examples, fake_vault

HOSTILE = st.sampled_from(
    ["..", "../../../x", "/etc/passwd", "C:\\Windows\\x", "con", "NUL", "a/b", "\x1b[2J", ".", ""]
)
TEXT = st.one_of(HOSTILE, st.text(max_size=300), st.builds(lambda a, b: a + b, HOSTILE, st.text()))


def _doc(title: str, doc_id: str) -> MarkdownDocument:
    return MarkdownDocument(doc_id, title, "note", "default", (), None, 0, 0, "body")


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=8))
def test_every_written_file_is_directly_inside_the_chosen_folder(
    documents: list[tuple[str, str]],
) -> None:
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root) / "export"
        folder.mkdir()
        taken = {"_statements.md"}
        names = []
        for title, doc_id in documents:
            name = file_name(_doc(title, doc_id), taken)
            _write(folder, name, "text")
            names.append(name)
        assert len(set(n.casefold() for n in names)) == len(names)  # de-duplicated
        written = sorted(p for p in Path(root).rglob("*") if p.is_file())
        assert len(written) == len(names)
        for path in written:
            assert path.resolve().parent == folder.resolve()
            assert path.name.endswith(".md") and not path.name.startswith(".")
            assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in path.name)


@settings(max_examples=examples(300), deadline=None)
@given(TEXT)
def test_a_stem_has_no_separator_dot_control_or_reserved_name(text: str) -> None:
    stem = safe_stem(text)
    assert "/" not in stem and "\\" not in stem and "." not in stem
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in stem)
    assert stem.casefold() not in {"con", "nul", "prn", "aux"}
    assert len(stem.encode("utf-8")) <= MAX_STEM_BYTES + 1
    assert stem == stem.strip()


def test_export_of_hostile_titles_stays_in_the_folder(tmp_path: Path) -> None:
    vault = fake_vault(tmp_path / "vault.db")
    try:
        for title in ("../../escape", "/etc/passwd", "con", "..", "\x1b]52;c;aGk=\x07 clip"):
            vault.note(f"# {title}\nbody", caller=Caller.owner())
        out = tmp_path / "out"
        report = vault.sync.export_markdown(out, caller=Caller.owner())
        assert report.documents == 5
        outside = [p for p in tmp_path.rglob("*.md") if p.parent != out]
        # Five documents, `_statements.md` and `_shelves.md`.
        assert outside == [] and len(list(out.glob("*.md"))) == 7
    finally:
        vault.close()


def test_a_symlink_in_the_folder_is_replaced_not_followed(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (folder / "Note.md").symlink_to(victim)
    _write(folder, "Note.md", "new")
    assert victim.read_text() == "keep"
    assert (folder / "Note.md").read_text() == "new" and not (folder / "Note.md").is_symlink()
