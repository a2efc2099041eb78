"""An onnxruntime session that starts in a quarter of the time: the graph optimised once.

onnxruntime optimises a graph every time a session is built. For the int8 MiniLM graph
that costs about 0.3 s of one core — constant folding turns its quantised weights into the
float ones the fast kernels run — and it was most of a `privault search` process. The
optimised graph is saved once, with its weights in a separate file that later sessions map
from disk instead of parsing, and loaded with optimisation off: 0.05 s, the same vectors.

Before it is optimised, the graph's spelled-out GELUs become one node each
(`retrieval.gelu`): about 10% less CPU a passage, the same vectors to float rounding. Where
onnxruntime can, its matrix products then run on the int8 weights the graph ships
(`retrieval.int8_matmul`): a query's vector in 60% of the time, within a cosine of 0.999
of the float graph's. A copy made so is kept only when its vector of a probe text agrees
with the source graph's (`AGREEMENT`); otherwise it is made again without that rewrite.
A machine without the `onnx` package, or a graph with nothing to rewrite, is prepared as
it is.

The saved files are derived, not shipped, so they cannot be pinned in a manifest: they live
in `<model folder>/.prepared/<key>/` (the key names the source's sha256, the onnxruntime
version and the machine), are written to a scratch folder and renamed into place whole,
and their sha256 are recorded then and checked on every load, as a model's own files are
(`catalog.hash_matches`).
Anything wrong — files missing or altered, a folder that cannot be written, a session that
will not load them — falls back to optimising the verified source in memory, as before.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import shutil
import tempfile
from pathlib import Path
from typing import Any

from privault.models.catalog import hash_matches, sha256_file

log = logging.getLogger(__name__)

GRAPH = "model.onnx"
WEIGHTS = "weights.bin"
RECORD = "prepared.json"
FOLDER = ".prepared"
STAMPS = "stamps.json"  # in FOLDER: see `catalog.hash_matches`
RECIPE = "gelu1-int8w32"  # how a copy is made: in its folder's name, so a new way re-prepares
# The least cosine between the prepared and the source graph's vectors of a probe text.
AGREEMENT = 0.999
_PROBE = ((101, 2043, 2003, 1996, 18847, 2326, 2349, 2006, 1996, 4713, 2279, 2733, 1029, 102),)
_REWRITES = ("gelu.onnx", "int8.onnx")  # graphs in the scratch folder while preparing
_INLINE_BYTES = 1024  # initialisers at least this large go to the mapped weights file


def single_thread_session(model: Path, model_sha256: str) -> Any:
    """A one-thread session over `model` (whose sha256 the caller has verified), from its
    prepared copy when one is intact, else optimised in memory (and prepared for next time)."""
    import onnxruntime as ort

    folder = model.parent / FOLDER / _key(model_sha256, ort.__version__)
    if _intact(folder) or _prepare(model, folder):
        try:
            return _session(folder / GRAPH, optimise=False)
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own untyped errors
            log.warning("prepared model %s did not load (%s); optimising the source", folder, exc)
    return _session(model, optimise=True)


def _key(model_sha256: str, ort_version: str) -> str:
    return f"{model_sha256[:16]}-ort{ort_version}-{platform.machine() or 'cpu'}-{RECIPE}"


def _session(path: Path, *, optimise: bool, save_to: Path | None = None) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    level = ort.GraphOptimizationLevel
    # A saved graph gets the extended level: the whole level adds layout changes made for
    # this CPU, which onnxruntime says may not load elsewhere.
    options.graph_optimization_level = (
        (level.ORT_ENABLE_EXTENDED if save_to else level.ORT_ENABLE_ALL)
        if optimise
        else level.ORT_DISABLE_ALL
    )
    if save_to is not None:
        options.optimized_model_filepath = str(save_to / GRAPH)
        options.add_session_config_entry(
            "session.optimized_model_external_initializers_file_name", WEIGHTS
        )
        options.add_session_config_entry(
            "session.optimized_model_external_initializers_min_size_in_bytes", str(_INLINE_BYTES)
        )
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _intact(folder: Path) -> bool:
    """Whether the prepared files are there and hash as recorded when they were made."""
    try:
        record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
        stamps = folder.parent / STAMPS
        return all(
            hash_matches(folder / name, str(record.get(name)), stamps) for name in (GRAPH, WEIGHTS)
        )
    except (OSError, ValueError):
        return False


def _prepare(model: Path, folder: Path) -> bool:
    """Optimise `model` into `folder`, whole or not at all; whether an intact copy is there
    now. A failure is logged, not raised."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=".partial-", dir=folder.parent))
    except OSError as exc:
        log.info("cannot prepare %s (%s); it is optimised in memory instead", model, exc)
        return False
    try:
        rewritten = _rewritten(model, scratch, int8=True)
        made = _session(rewritten, optimise=True, save_to=scratch)
        # only int8 products move the vectors beyond float rounding: only they are checked
        agrees = rewritten.name != _REWRITES[1] or _agrees(made, model)
        del made
        if not agrees:
            log.warning("the int8 products of %s disagree with its float graph; not used", model)
            for name in (GRAPH, WEIGHTS):  # written anew, never appended to
                (scratch / name).unlink()
            _session(_rewritten(model, scratch, int8=False), optimise=True, save_to=scratch)
        for name in _REWRITES:
            (scratch / name).unlink(missing_ok=True)
        record = {name: sha256_file(scratch / name) for name in (GRAPH, WEIGHTS)}
        (scratch / RECORD).write_text(json.dumps(record), encoding="utf-8")
        if folder.exists():  # left by an interrupted or broken earlier preparation
            shutil.rmtree(folder, ignore_errors=True)
        try:
            os.rename(scratch, folder)
        except OSError:  # another process won the race: its copy is kept, and checked
            return _intact(folder)
        _drop_older_recipes(folder)
        return True  # the files just hashed into the record: no need to read them again
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own untyped errors
        log.info("cannot prepare %s (%s); it is optimised in memory instead", model, exc)
        return False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _drop_older_recipes(folder: Path) -> None:
    """Delete the copies of the same graph that this onnxruntime made on this machine by an
    earlier recipe: nothing loads them again (copies for other versions are left alone,
    another environment may use them)."""
    prefix = folder.name[: -len(RECIPE)]
    for other in folder.parent.iterdir():
        if other.is_dir() and other.name.startswith(prefix) and other.name != folder.name:
            shutil.rmtree(other, ignore_errors=True)


def _rewritten(model: Path, scratch: Path, *, int8: bool) -> Path:
    """`model` with its GELUs fused and (with `int8`, where onnxruntime can) its products on
    int8 weights, written into `scratch`; `model` itself when neither can be done (no
    `onnx` package, nothing to rewrite, a graph it cannot read)."""
    import onnxruntime as ort

    from privault.retrieval import gelu, int8_matmul

    path = model
    steps = [(_REWRITES[0], gelu.fuse)]
    if int8 and int8_matmul.supported(ort.__version__):
        steps.append((_REWRITES[1], int8_matmul.rewrite))
    for name, rewrite in steps:
        try:
            if rewrite(path, scratch / name):
                path = scratch / name
        except Exception as exc:  # noqa: BLE001 - a missing package or an unreadable graph
            log.info("cannot rewrite %s (%s: %s); preparing it without", model, name, exc)
    return path


def _agrees(session: Any, model: Path) -> bool:
    """Whether `session` gives the probe text the vector the source graph gives it."""
    vectors = [_probe_vector(s) for s in (session, _session(model, optimise=True))]
    return float(vectors[0] @ vectors[1]) >= AGREEMENT


def _probe_vector(session: Any) -> Any:
    import numpy as np

    ids = np.asarray(_PROBE, dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    if "token_type_ids" in {node.name for node in session.get_inputs()}:
        feeds["token_type_ids"] = np.zeros_like(ids)
    vector = session.run(None, feeds)[0][0].mean(axis=0)
    return vector / max(float(np.linalg.norm(vector)), 1e-12)
