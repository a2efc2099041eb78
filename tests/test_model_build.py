"""The llama.cpp build is portable: it can neither select AMX kernels nor be tuned to the
machine that compiled it. Checked on any CPU, from llama.cpp's own report of itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from privault.errors import ModelUnavailable
from privault.interfaces.cli import app
from privault.models import catalog, llama
from privault.models.chat import Message
from privault.models.engines import Spec
from privault.models.handles import WorkerChat
from privault.models.supervisor import ModelProcess
from privault.vault import doctor
from privault.vault.doctor import features, judge_build

BASELINE = (
    "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
    "LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
)
NATIVE_SAPPHIRE_RAPIDS = (
    "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
    "AVX512 = 1 | AVX512_VBMI = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | AMX_INT8 = 1 | "
    "LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
)
ZEN4_FLAGS = {"avx", "avx2", "fma", "f16c", "avx512f", "avx512vbmi", "avx512_vnni", "avx512_bf16"}


def test_features_reads_llama_cpps_system_line() -> None:
    assert features("CPU : AVX = 1 | AVX2 = 1 | AVX512 = 0 | OPENMP = 1 | ") == (
        "AVX",
        "AVX2",
        "OPENMP",
    )


@pytest.mark.parametrize(
    ("line", "flags", "portable", "problem"),
    [
        (BASELINE, ZEN4_FLAGS, True, None),
        (BASELINE, set(), True, None),
        (NATIVE_SAPPHIRE_RAPIDS, ZEN4_FLAGS | {"amx_int8", "amx_bf16"}, False, "AMX_INT8 kernels"),
        (
            NATIVE_SAPPHIRE_RAPIDS.replace("AMX_INT8 = 1", "AMX_INT8 = 0"),
            ZEN4_FLAGS,
            False,
            "tuned to the CPU",
        ),
        (
            BASELINE.replace("BMI2 = 1", "AVX512 = 1"),
            {"avx", "avx2", "fma", "f16c"},
            False,
            "AVX512, which this CPU does not have",
        ),
    ],
)
def test_judge_build(line: str, flags: set[str], portable: bool, problem: str | None) -> None:
    check = judge_build(line, flags)
    assert check.portable is portable
    if problem is None:
        assert check.problem is None and check.advice == ""
    else:
        assert check.problem is not None and problem in check.problem
        assert "GGML_NATIVE=OFF" in check.advice


def test_a_portable_build_on_an_avx512_cpu_is_fine_but_says_what_it_leaves_unused() -> None:
    check = judge_build(BASELINE, ZEN4_FLAGS)
    assert check.problem is None and check.hint is not None
    assert "AVX-512" in check.hint and "GGML_CPU_ALL_VARIANTS=ON" in check.hint
    assert judge_build(BASELINE, {"avx", "avx2", "fma", "f16c"}).hint is None  # nothing unused
    zen4 = NATIVE_SAPPHIRE_RAPIDS.replace("AMX_INT8 = 1", "AMX_INT8 = 0")
    assert judge_build(zen4, ZEN4_FLAGS, dispatched=True).hint is None  # it uses it already


def test_a_dispatched_build_may_use_what_this_cpu_has_but_never_amx() -> None:
    zen4 = NATIVE_SAPPHIRE_RAPIDS.replace("AMX_INT8 = 1", "AMX_INT8 = 0")
    assert judge_build(zen4, ZEN4_FLAGS, dispatched=True).problem is None
    check = judge_build(zen4, ZEN4_FLAGS, dispatched=True, amx_linked=True)
    assert check.problem is not None and "AMX kernels" in check.problem
    linked = judge_build(BASELINE, ZEN4_FLAGS, amx_linked=True)  # the line may not say it
    assert linked.problem is not None and "AMX" in linked.problem


def test_a_cpu_variant_holding_amx_kernels_is_never_chosen(tmp_path: Path) -> None:
    amx = tmp_path / "libggml-cpu-sapphirerapids.so"
    amx.write_bytes(b"\x7fELF" + b"\0" * 64 + llama.AMX_MARK + b"\0" * 64)
    assert llama.holds_amx(amx)
    assert llama.best_variant([amx]) is None  # left out before it is ever opened


@pytest.mark.real
def test_the_installed_llama_cpp_is_the_portable_build() -> None:
    check = doctor.check_build()
    assert check is not None and check.problem is None and check.portable, check
    assert not any(feature.startswith("AMX") for feature in check.features)


@pytest.mark.real
def test_no_cpu_library_privault_loads_holds_amx_kernels() -> None:
    """Read from the libraries themselves: a native build on an AMX CPU, or a dispatched
    build's AMX variant, holds ggml's AMX buffer type whatever the system line says."""
    import llama_cpp

    package = Path(llama_cpp.__file__).parent
    folder = package / "lib"
    variants = llama.cpu_variants(package)
    if variants:  # runtime-dispatched: what privault picks
        chosen = llama.best_variant(variants)
        assert chosen is not None and not llama.holds_amx(chosen)
    linked = llama.linked_cpu_libraries(package)
    assert variants or linked, sorted(p.name for p in folder.iterdir())
    assert not any(llama.holds_amx(p) for p in linked)


@pytest.mark.real
def test_a_model_loads_into_no_amx_buffer(models_dir: Path) -> None:
    """The buffer types llama.cpp puts a model's weights in, as it logs them while loading
    (in a child process: this one must not hold a model)."""
    folder, manifest = catalog.verified_model(models_dir, "smollm2-135m")
    path = folder / manifest.files[0].path
    code = (
        "import sys; from llama_cpp import Llama; from privault.models.llama import load_backends; "
        "load_backends(); "
        f"Llama(model_path={str(path)!r}, n_ctx=256, n_threads=2, verbose=True)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    buffers = [line for line in done.stderr.splitlines() if "buffer size" in line]
    assert any("model buffer size" in line for line in buffers), done.stderr[-2000:]
    assert not any("AMX" in line for line in buffers), buffers


def test_doctor_reports_a_crashing_model_in_words_with_the_fix() -> None:
    process = ModelProcess(Spec("fake-chat", "crashy"), max_failures=1)
    try:
        with pytest.raises(ModelUnavailable) as stopped:
            WorkerChat(process.spec, process=process).chat([Message("user", "[[crash:segv]]")])
        check = doctor._failed(process, "chat", stopped.value)
    finally:
        process.close()
    assert check.verdict == "crashed" and "signal 11 (SIGSEGV)" in check.detail
    assert "GGML_NATIVE=OFF" in check.advice


def test_doctor_reports_a_model_that_cannot_load_as_broken_not_as_a_crash(
    tmp_path: Path,
) -> None:
    # A bad file is no fault of this CPU: the advice is to install the model again.
    folder = tmp_path / "smollm2-135m"
    folder.mkdir()
    (folder / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"not a model")
    check = doctor._check_chat(tmp_path, "smollm2-135m")
    assert check.verdict == "broken" and "cannot be used" in check.detail, check
    assert check.advice == "privault models install smollm2-135m"


def test_doctor_with_no_models_says_how_to_install_them(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["doctor"], env={"PRIVAULT_MODELS": str(tmp_path)})
    assert "no models installed: `privault models install NAME`" in result.output


@pytest.mark.real
def test_doctor_runs_each_installed_model_in_a_child_process(
    tmp_path: Path, models_dir: Path
) -> None:
    for name in ("smollm2-135m", "minilm-l6-v2-int8"):
        (tmp_path / name).symlink_to(models_dir / name)
    result = CliRunner().invoke(app, ["doctor", "--json"], env={"PRIVAULT_MODELS": str(tmp_path)})
    data = json.loads(result.stdout)
    verdicts = {check["name"]: check for check in data["models"]}
    assert set(verdicts) == {"smollm2-135m", "minilm-l6-v2-int8"}
    chat = verdicts["smollm2-135m"]
    assert chat["verdict"] in ("works", "too slow") and "tokens/s" in chat["detail"]
    assert verdicts["minilm-l6-v2-int8"]["verdict"] == "works"
    assert data["build"]["problem"] is None and result.exit_code == 0
