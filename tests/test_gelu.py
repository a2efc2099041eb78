"""The GELU rewrite on small graphs built here: what it fuses, what it leaves, same output."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from privault.retrieval import gelu

WIDTH = 8


def _graph(
    tmp_path: Path,
    *,
    half_first: bool = True,
    root: float = math.sqrt(2),
    leak: bool = False,
    outputs_half: bool = False,
) -> Path:
    """y = x * ((erf(x / root) + 1) * 0.5) after a bias add (0.5 first or last); `leak`
    also outputs the erf's result, which the rewrite must then keep; `outputs_half` also
    outputs the constant 0.5 itself."""
    constants = {
        "bias": np.linspace(-1, 1, WIDTH, dtype=np.float32),
        "root": np.array(root, dtype=np.float32),
        "one": np.array(1.0, dtype=np.float32),
        "half": np.array(0.5, dtype=np.float32),
    }
    nodes = [
        helper.make_node("Add", ["input", "bias"], ["x"]),
        helper.make_node("Div", ["x", "root"], ["scaled"]),
        helper.make_node("Erf", ["scaled"], ["erf"]),
        helper.make_node("Add", ["erf", "one"], ["shifted"]),
    ]
    if half_first:
        nodes += [
            helper.make_node("Mul", ["shifted", "half"], ["halved"]),
            helper.make_node("Mul", ["x", "halved"], ["output"]),
        ]
    else:
        nodes += [
            helper.make_node("Mul", ["x", "shifted"], ["times"]),
            helper.make_node("Mul", ["times", "half"], ["output"]),
        ]
    outputs = [helper.make_tensor_value_info("output", TensorProto.FLOAT, [None, WIDTH])]
    if leak:
        outputs.append(helper.make_tensor_value_info("erf", TensorProto.FLOAT, [None, WIDTH]))
    if outputs_half:
        outputs.append(helper.make_tensor_value_info("half", TensorProto.FLOAT, []))
    graph = helper.make_graph(
        nodes,
        "gelu",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [None, WIDTH])],
        outputs,
        [numpy_helper.from_array(value, name) for name, value in constants.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    return path


def _run(path: Path, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(["output"], {"input": x})[0]


@pytest.mark.parametrize("half_first", [True, False])
def test_each_spelled_out_gelu_becomes_one_node_with_the_same_output(
    tmp_path: Path, half_first: bool
) -> None:
    source = _graph(tmp_path, half_first=half_first)
    target = tmp_path / "fused.onnx"
    assert gelu.fuse(source, target) == 1
    fused = onnx.load(str(target))
    assert [node.op_type for node in fused.graph.node] == ["Add", "Gelu"]
    assert {i.name for i in fused.graph.initializer} == {"bias"}  # the fused constants go
    x = np.random.default_rng(3).normal(0, 3, (5, WIDTH)).astype(np.float32)
    np.testing.assert_allclose(_run(target, x), _run(source, x), atol=1e-6)


@pytest.mark.parametrize(
    "change", [{"root": 2.0}, {"leak": True}], ids=["another-constant", "inner-result-used"]
)
def test_a_graph_that_is_not_exactly_gelu_is_left_as_it_is(
    tmp_path: Path, change: dict[str, float | bool]
) -> None:
    source = _graph(tmp_path, **change)  # type: ignore[arg-type]
    target = tmp_path / "fused.onnx"
    assert gelu.fuse(source, target) == 0
    assert not target.exists()


def test_a_fused_constant_that_is_also_a_graph_output_is_kept(tmp_path: Path) -> None:
    source = _graph(tmp_path, outputs_half=True)
    target = tmp_path / "fused.onnx"
    assert gelu.fuse(source, target) == 1
    fused = onnx.load(str(target))
    onnx.checker.check_model(fused)
    assert {i.name for i in fused.graph.initializer} == {"bias", "half"}
    session = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(4).normal(0, 3, (2, WIDTH)).astype(np.float32)
    output, half = session.run(["output", "half"], {"input": x})
    np.testing.assert_allclose(output, _run(source, x), atol=1e-6)
    assert float(half) == 0.5
