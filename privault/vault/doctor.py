"""`privault doctor`: does each installed model run on this machine, and how fast?

A hash-verified model says nothing about whether the runtime can decode on this CPU: a
llama.cpp built for another CPU (or one that picks a faulty kernel, as its AMX matrix code
does on the first real decode) dies with a signal. So every check runs in a child process —
the llama.cpp models in the same supervised worker `serve` uses, the others in a probe
process of their own — and a crash comes back as words, never as exit 139 of this one.

For each model: one short real prompt (chat), a few lines (embedders), one sentence (NER);
the verdict is `works`, `crashed` (the signal), `too slow` (under `SLOW_TOKENS_PER_S` new
tokens a second: an answer would take minutes), or `broken` (the files or the runtime).
The llama.cpp build is checked too: the CPU features it computes with (its own system
line), against what this CPU has and against the portable build privault installs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from privault.errors import ModelError, ModelUnavailable
from privault.jsonform import JsonForm
from privault.models import catalog
from privault.models.chat import Message
from privault.models.engines import Spec
from privault.models.handles import WorkerChat, WorkerEmbedder
from privault.models.supervisor import Deadline, ModelProcess

Verdict = Literal["works", "crashed", "too slow", "broken"]
SLOW_TOKENS_PER_S = 2.0
# The x86-64 features of a portable single-variant build: any other in its system line
# means it was tuned to the machine that compiled it. (A dispatched build, what the Makefile
# installs on x86-64 Linux, may show more: the variant privault chose for this CPU.)
PORTABLE = frozenset({"SSE3", "SSSE3", "AVX", "AVX2", "F16C", "FMA", "BMI2"})
# Features whose kernels are known to fault on CPUs that report them (AMX tiles).
FAULTY = ("AMX",)
REBUILD = (
    'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON" '
    "pip install --force-reinstall --no-cache-dir --no-deps llama-cpp-python==0.3.36"
)
_CPU_FLAGS = {
    "AVX512": "avx512f",
    "AVX512_VBMI": "avx512vbmi",
    "AVX512_VNNI": "avx512_vnni",
    "AVX512_BF16": "avx512_bf16",
    "AVX_VNNI": "avx_vnni",
    "AMX_INT8": "amx_int8",
    "AMX_BF16": "amx_bf16",
    "AVX2": "avx2",
    "FMA": "fma",
    "F16C": "f16c",
    "AVX": "avx",
}


@dataclass(frozen=True)
class ModelCheck(JsonForm):
    """One model's verdict."""

    name: str
    role: str
    verdict: Verdict
    detail: str  # what was measured, or what went wrong
    advice: str = ""  # what to do about it


@dataclass(frozen=True)
class BuildCheck(JsonForm):
    """The llama.cpp build: the features it uses, and whether that is safe here."""

    features: tuple[str, ...]  # e.g. ("AVX", "AVX2", "FMA")
    portable: bool  # only the features of privault's portable build
    problem: str | None  # a reason it may fault on this CPU, or None
    advice: str = ""
    # Not a fault: speed the build leaves unused on this CPU, and how to get it.
    hint: str | None = None
    dispatched: bool = False  # one library per CPU variant; `features` are this CPU's


def features(system_line: str) -> tuple[str, ...]:
    """The CPU features a llama.cpp system line says are on (`AVX2 = 1 | …`)."""
    found = []
    for part in system_line.replace("CPU :", "|").split("|"):
        name, _, value = part.partition("=")
        if value.strip() == "1" and name.strip():
            found.append(name.strip())
    return tuple(found)


def judge_build(
    system_line: str, cpu_flags: set[str], *, dispatched: bool = False, amx_linked: bool = False
) -> BuildCheck:
    """Whether a build with this system line is safe on a CPU with these /proc flags.

    `dispatched`: the build keeps one library per CPU variant and privault picked this
    line's variant for this CPU (`models.llama.load_backends`), so features beyond the
    baseline are not tuning. `amx_linked`: the CPU library it computes with holds ggml's
    AMX kernels (a native build on an AMX CPU), whatever the line says."""
    used = features(system_line)
    cpu_features = [f for f in used if f not in ("LLAMAFILE", "OPENMP", "REPACK", "ACCELERATE")]
    portable = dispatched or set(cpu_features) <= PORTABLE
    faulty = [f for f in cpu_features if f.startswith(FAULTY)] or (["AMX"] if amx_linked else [])
    missing = [f for f in cpu_features if f in _CPU_FLAGS and _CPU_FLAGS[f] not in cpu_flags]
    problem = None
    if faulty:
        problem = (
            f"this llama.cpp can select {', '.join(faulty)} kernels, which fault on the first "
            "real decode on CPUs that have them"
        )
    elif missing and cpu_flags:
        problem = f"this llama.cpp uses {', '.join(missing)}, which this CPU does not have"
    elif not portable:
        problem = (
            "this llama.cpp was tuned to the CPU that compiled it "
            f"({', '.join(sorted(set(cpu_features) - PORTABLE))})"
        )
    hint = None
    if not problem and not dispatched and "avx512f" in cpu_flags and "AVX512" not in used:
        hint = (
            "this CPU has AVX-512, which this build does not use; the build with one library "
            "per CPU variant does (it read prompts 40% faster on the AVX-512 CPU measured in "
            f"docs/models.md): {REBUILD}"
        )
    return BuildCheck(
        tuple(used),
        portable,
        problem,
        f"rebuild it portably: {REBUILD}" if problem else "",
        hint,
        dispatched,
    )


def cpu_flags() -> set[str]:
    """This CPU's feature flags (Linux; empty elsewhere)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith(("flags", "Features")):
            return set(line.split(":", 1)[1].split())
    return set()


# Run in a child: the system line of the CPU backend privault loads, whether the build
# dispatches per CPU variant, and whether the library it computes with holds AMX kernels.
_BUILD_PROBE = """
import json, pathlib, sys, llama_cpp
from privault.models import llama
line = llama.system_info()
package = pathlib.Path(llama_cpp.__file__).parent
variants = llama.cpu_variants(package)
amx = any(llama.holds_amx(p) for p in llama.linked_cpu_libraries(package))
sys.stdout.write(json.dumps({"line": line, "dispatched": bool(variants), "amx_linked": amx}))
"""


def check_build() -> BuildCheck | None:
    """The installed llama.cpp's build, read in a child process (None: not installed)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _BUILD_PROBE], capture_output=True, text=True, timeout=120
        )
    except subprocess.TimeoutExpired:
        return BuildCheck((), False, "reading llama.cpp's system information timed out")
    if done.returncode != 0:
        if "No module named 'llama_cpp'" in done.stderr:
            return None
        return BuildCheck((), False, f"llama.cpp does not load (exit {done.returncode})", REBUILD)
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    return judge_build(
        facts["line"], cpu_flags(), dispatched=facts["dispatched"], amx_linked=facts["amx_linked"]
    )


def check_models(models_dir: Path) -> list[ModelCheck]:
    """Each installed model, run once in a child process."""
    checks = []
    for name, manifest in sorted(catalog.manifests(models_dir).items()):
        if not catalog.is_installed(models_dir, name):
            continue
        problems = catalog.problems(models_dir, manifest)
        if problems:
            advice = f"privault models install {name}"
            checks.append(ModelCheck(name, manifest.role, "broken", problems[0], advice))
            continue
        gguf = manifest.files[0].path.endswith(".gguf")
        if manifest.role == "chat":
            checks.append(_check_chat(models_dir, name))
        elif manifest.role == "embed" and gguf:
            checks.append(_check_llama_embed(models_dir, name, manifest))
        else:
            checks.append(_check_probe(models_dir, name, manifest.role))
    return checks


_DEADLINE = Deadline(base=60.0, per_prompt_char=0.05, silence=30.0, per_text=5.0)
_CRASH_ADVICE = (
    "the llama.cpp runtime faults on this CPU: rebuild it portably and run `privault doctor` "
    f"again: {REBUILD}"
)


def _failed(process: ModelProcess, role: str, exc: Exception) -> ModelCheck:
    name = process.spec.name
    if isinstance(exc, ModelUnavailable) and not exc.cannot_load:
        detail = f"the model process stopped: {process.health().reason}"
        return ModelCheck(name, role, "crashed", detail, _CRASH_ADVICE)
    return ModelCheck(name, role, "broken", str(exc), f"privault models install {name}")


def _check_chat(models_dir: Path, name: str) -> ModelCheck:
    spec = Spec("llama-chat", name, str(models_dir), threads=2)
    process = ModelProcess(spec, max_failures=1)
    try:
        chat = WorkerChat(spec, deadline=_DEADLINE, process=process)
        started = time.perf_counter()
        process.start()
        loaded = time.perf_counter() - started
        prompt = [Message("user", "Write one short sentence about the sea.")]
        result = chat.chat(prompt, max_tokens=24)
    except (ModelError, OSError) as exc:
        return _failed(process, "chat", exc)
    finally:
        process.close()
    rate = result.completion_tokens / result.seconds if result.seconds > 0 else 0.0
    detail = f"{rate:.1f} tokens/s writing, loaded in {loaded:.1f} s"
    if rate < SLOW_TOKENS_PER_S:
        return ModelCheck(
            name, "chat", "too slow", detail, "answers will take minutes: choose a smaller model"
        )
    return ModelCheck(name, "chat", "works", detail)


def _check_llama_embed(models_dir: Path, name: str, manifest: catalog.Manifest) -> ModelCheck:
    dim = int((manifest.embed or {}).get("dim", 768))
    spec = Spec("llama-embed", name, str(models_dir), threads=1, query_threads=2, dim=dim)
    process = ModelProcess(spec, max_failures=1)
    try:
        embedder = WorkerEmbedder(spec, deadline=_DEADLINE, process=process)
        process.start()
        started = time.perf_counter()
        lines = [f"Line {n}: the boiler was serviced on a Tuesday in March." for n in range(8)]
        embedder.embed_documents(lines)
        seconds = time.perf_counter() - started
    except (ModelError, OSError) as exc:
        return _failed(process, "embed", exc)
    finally:
        process.close()
    return ModelCheck(name, "embed", "works", f"{len(lines) / seconds:.1f} lines/s")


def _check_probe(models_dir: Path, name: str, role: str) -> ModelCheck:
    """The ONNX embedder or the NER pipeline, loaded by `probe` in a process of its own."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "privault.vault.doctor", role, str(models_dir)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        return ModelCheck(name, role, "too slow", "no result within 300 s")
    if done.returncode < 0:
        from privault.models.supervisor import describe_exit

        return ModelCheck(name, role, "crashed", describe_exit(done.returncode), "")
    try:
        result = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return ModelCheck(name, role, "broken", last[:300], f"privault models install {name}")
    if not result.get("ok"):
        return ModelCheck(name, role, "broken", str(result.get("error")), "")
    return ModelCheck(name, role, "works", str(result["detail"]))


def probe(role: str, models_dir: Path) -> dict[str, Any]:
    """Load the ONNX embedder (`embed`) or the detector with its NER (`ner`); run once."""
    started = time.perf_counter()
    if role == "embed":
        from privault.vault.embedding import default_embedder

        vector = default_embedder(models_dir).embed_query("when is the boiler serviced")
        detail = f"{len(vector)} dimensions"
    else:
        from privault.privacy.detector import Detector, DetectorConfig, second_ner_folder

        detector = Detector(DetectorConfig(second_ner=second_ner_folder(models_dir)))
        spans = detector.detect("Call Dana Lee in Lisbon on Friday.")
        detail = f"{len(spans)} spans in a test sentence"
    return {"ok": True, "detail": f"{detail}, {time.perf_counter() - started:.1f} s with loading"}


def main(argv: list[str]) -> int:
    """`build`: exit 1 unless llama.cpp is a portable build (the Makefile's check);
    `embed|ner MODELS_DIR`: the probe process of `_check_probe`."""
    if argv[1] == "build":
        build = check_build()
        if build is not None and build.problem:
            print(f"llama.cpp: {build.problem}; rebuilding", file=sys.stderr)
            return 1
        return 0
    try:
        print(json.dumps(probe(argv[1], Path(argv[2]))))
    except Exception as exc:  # the parent reports it; no traceback, no input text
        print(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
