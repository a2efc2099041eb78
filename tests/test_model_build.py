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
from privault.models import catalog
from privault.models.chat import Message
from privault.models.engines import Spec
from privault.models.handles import WorkerChat
from privault.models.supervisor import ModelProcess
from privault.vault import doctor
from privault.vault.doctor import cpu_flags, features, judge_build

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


@pytest.mark.real
def test_the_installed_llama_cpp_is_the_portable_build() -> None:
    code = "import llama_cpp, sys; sys.stdout.write(llama_cpp.llama_print_system_info().decode())"
    line = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    check = judge_build(line, cpu_flags())
    assert check.problem is None and check.portable, line
    assert not any(feature.startswith(("AVX512", "AMX", "AVX_VNNI")) for feature in features(line))


@pytest.mark.real
def test_a_model_loads_into_no_amx_buffer(models_dir: Path) -> None:
    """The buffer types llama.cpp puts a model's weights in, as it logs them while loading
    (in a child process: this one must not hold a model)."""
    folder, manifest = catalog.verified_model(models_dir, "smollm2-135m")
    path = folder / manifest.files[0].path
    code = (
        "import sys; from llama_cpp import Llama; "
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
