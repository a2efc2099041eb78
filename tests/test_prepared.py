"""The query session's prepared graph: the vectors of its recipe (within a cosine of the
source's), checked like a model, never trusted when it is altered (the real MiniLM,
installed by `make test`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from privault.models import catalog
from privault.retrieval import prepared

pytestmark = pytest.mark.real

TEXT_IDS = np.asarray([[101, 2043, 2003, 1996, 18847, 2326, 2349, 102]], dtype=np.int64)


def _copy_of_minilm(models_dir: Path, tmp_path: Path) -> tuple[Path, str]:
    folder = tmp_path / "minilm"
    folder.mkdir()
    shutil.copy(catalog.verified_path(models_dir, "minilm-l6-v2-int8") / "model.onnx", folder)
    manifest = catalog.manifest(models_dir, "minilm-l6-v2-int8")
    sha = next(file.sha256 for file in manifest.files if file.path == "model.onnx")
    return folder / "model.onnx", sha


def _vector(session) -> np.ndarray:
    feeds = {
        "input_ids": TEXT_IDS,
        "attention_mask": np.ones_like(TEXT_IDS),
        "token_type_ids": np.zeros_like(TEXT_IDS),
    }
    return session.run(None, feeds)[0][0].mean(axis=0)


def _recipe(model: Path, tmp_path: Path, *, int8: bool = True) -> np.ndarray:
    """The probe's vector from the source rewritten as a prepared copy is, in memory."""
    scratch = tmp_path / f"recipe-{int8}"
    scratch.mkdir(exist_ok=True)
    return _vector(prepared._session(prepared._rewritten(model, scratch, int8=int8), optimise=True))


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _prepared_folder(model: Path) -> Path:
    (found,) = [p for p in (model.parent / prepared.FOLDER).iterdir() if p.is_dir()]
    return found


def test_the_prepared_graph_gives_the_vectors_of_its_recipe_near_the_source(
    models_dir: Path, tmp_path: Path
) -> None:
    model, sha = _copy_of_minilm(models_dir, tmp_path)
    source = _vector(prepared._session(model, optimise=True))
    in_memory = _recipe(model, tmp_path)
    assert _cosine(in_memory, source) >= prepared.AGREEMENT
    first = prepared.single_thread_session(model, sha)  # prepares, then loads the copy
    folder = _prepared_folder(model)
    assert (folder / prepared.WEIGHTS).stat().st_size > 0
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [prepared.GRAPH, prepared.WEIGHTS, prepared.RECORD]
    )
    again = prepared.single_thread_session(model, sha)  # loads the copy made before
    np.testing.assert_allclose(_vector(first), in_memory, atol=1e-5)
    np.testing.assert_allclose(_vector(again), in_memory, atol=1e-5)


def test_a_new_recipe_deletes_the_copies_of_older_ones_for_this_onnxruntime(
    models_dir: Path, tmp_path: Path
) -> None:
    import onnxruntime as ort

    model, sha = _copy_of_minilm(models_dir, tmp_path)
    key = prepared._key(sha, ort.__version__)
    older = model.parent / prepared.FOLDER / key.replace(prepared.RECIPE, "gelu1")
    other_version = model.parent / prepared.FOLDER / prepared._key(sha, "0.0.1")
    for folder in (older, other_version):
        folder.mkdir(parents=True)
        (folder / prepared.WEIGHTS).write_bytes(b"weights of an earlier copy")
    prepared.single_thread_session(model, sha)
    names = sorted(p.name for p in (model.parent / prepared.FOLDER).iterdir() if p.is_dir())
    assert names == sorted([key, other_version.name])


def test_an_altered_prepared_copy_is_never_loaded(models_dir: Path, tmp_path: Path) -> None:
    model, sha = _copy_of_minilm(models_dir, tmp_path)
    in_memory = _recipe(model, tmp_path)
    prepared.single_thread_session(model, sha)
    weights = _prepared_folder(model) / prepared.WEIGHTS
    data = bytearray(weights.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 4096] = bytes(4096)  # zeroed weights, same size
    weights.write_bytes(bytes(data))
    assert not prepared._intact(weights.parent)
    session = prepared.single_thread_session(model, sha)  # prepared again, from the source
    assert prepared._intact(weights.parent)
    np.testing.assert_allclose(_vector(session), in_memory, atol=1e-5)


def test_a_folder_that_cannot_be_written_falls_back_to_the_source(
    models_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, sha = _copy_of_minilm(models_dir, tmp_path)
    in_memory = _vector(prepared._session(model, optimise=True))

    def refuse(*args: object, **kwargs: object) -> str:
        raise PermissionError("read-only models folder")

    monkeypatch.setattr(prepared.tempfile, "mkdtemp", refuse)
    session = prepared.single_thread_session(model, sha)
    np.testing.assert_allclose(_vector(session), in_memory, atol=1e-5)
    assert not (model.parent / prepared.FOLDER).exists() or not any(
        p.is_dir() for p in (model.parent / prepared.FOLDER).iterdir()
    )


@pytest.mark.parametrize("rival_intact", [True, False])
def test_a_copy_another_process_made_first_is_used_only_when_intact(
    models_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rival_intact: bool
) -> None:
    model, sha = _copy_of_minilm(models_dir, tmp_path)
    # the rival's copy when it is intact, else the source optimised in memory
    if rival_intact:
        in_memory = _recipe(model, tmp_path)
    else:
        in_memory = _vector(prepared._session(model, optimise=True))
    real_rename = prepared.os.rename
    rivals: list[Path] = []

    def rival_first(source: str | Path, target: str | Path) -> None:
        # Another process finishes its own preparation between our check and our rename.
        shutil.copytree(source, target)
        if not rival_intact:
            weights = Path(target) / prepared.WEIGHTS
            data = bytearray(weights.read_bytes())
            data[:4096] = bytes(4096)
            weights.write_bytes(bytes(data))
        rivals.append(Path(target))
        real_rename(source, target)  # fails: the folder is taken

    monkeypatch.setattr(prepared.os, "rename", rival_first)
    session = prepared.single_thread_session(model, sha)
    assert rivals and prepared._intact(rivals[0]) is rival_intact
    np.testing.assert_allclose(_vector(session), in_memory, atol=1e-5)
    assert [p.name for p in rivals[0].parent.iterdir() if p.name.startswith(".partial-")] == []


def test_the_prepared_graph_runs_each_gelu_as_one_node(models_dir: Path, tmp_path: Path) -> None:
    import onnx

    model, sha = _copy_of_minilm(models_dir, tmp_path)
    source_ops = [node.op_type for node in onnx.load(str(model)).graph.node]
    prepared.single_thread_session(model, sha)
    graph = onnx.load(str(_prepared_folder(model) / prepared.GRAPH), load_external_data=False)
    ops = [node.op_type for node in graph.graph.node]
    assert source_ops.count("Erf") == 6 and "Erf" not in ops
    assert ops.count("Gelu") + ops.count("BiasGelu") == 6


def test_the_prepared_graph_multiplies_by_its_int8_weights(
    models_dir: Path, tmp_path: Path
) -> None:
    import onnx
    import onnxruntime as ort

    from privault.retrieval import int8_matmul

    model, sha = _copy_of_minilm(models_dir, tmp_path)
    prepared.single_thread_session(model, sha)
    graph = onnx.load(str(_prepared_folder(model) / prepared.GRAPH), load_external_data=False)
    ops = [node.op_type for node in graph.graph.node]
    expected = 36 if int8_matmul.supported(ort.__version__) else 0  # 6 layers x 6 products
    assert ops.count("MatMulNBits") == expected


def test_int8_products_are_used_only_where_onnxruntime_has_them() -> None:
    from privault.retrieval.int8_matmul import supported

    assert supported("1.32.0", "x86_64") and supported("1.22.1", "AMD64")
    assert not supported("1.21.1", "x86_64")  # no 8-bit kernel before 1.22
    assert not supported("1.32.0", "aarch64")
    assert not supported("nightly", "x86_64")


def test_a_copy_whose_int8_products_disagree_is_made_again_without_them(
    models_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnx
    from onnx import numpy_helper

    from privault.retrieval import int8_matmul

    real_rewrite = int8_matmul.rewrite

    def wrong_scales(source: Path, target: Path) -> int:
        # a kernel that computes something else: one product's scales tripled
        count = real_rewrite(source, target)
        graph = onnx.load(str(target))
        scales = next(i for i in graph.graph.initializer if i.name.endswith("_scales"))
        scales.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(scales) * 3, scales.name))
        onnx.save(graph, str(target))
        return count

    model, sha = _copy_of_minilm(models_dir, tmp_path)
    without = _recipe(model, tmp_path, int8=False)
    monkeypatch.setattr(int8_matmul, "supported", lambda *args: True)
    monkeypatch.setattr(int8_matmul, "rewrite", wrong_scales)
    session = prepared.single_thread_session(model, sha)
    graph = onnx.load(str(_prepared_folder(model) / prepared.GRAPH), load_external_data=False)
    assert "MatMulNBits" not in [node.op_type for node in graph.graph.node]
    np.testing.assert_allclose(_vector(session), without, atol=1e-5)


def test_without_the_rewrites_the_copy_is_prepared_as_it_is(
    models_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from privault.retrieval import gelu, int8_matmul

    def missing(*args: object) -> int:
        raise ModuleNotFoundError("No module named 'onnx'")

    model, sha = _copy_of_minilm(models_dir, tmp_path)
    in_memory = _vector(prepared._session(model, optimise=True))
    monkeypatch.setattr(gelu, "fuse", missing)
    monkeypatch.setattr(int8_matmul, "rewrite", missing)
    session = prepared.single_thread_session(model, sha)
    assert prepared._intact(_prepared_folder(model))
    np.testing.assert_allclose(_vector(session), in_memory, atol=1e-5)
