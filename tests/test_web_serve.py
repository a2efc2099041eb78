"""What `privault serve` does before it answers the first request (the page's latency
depends on it): every engine loaded, then the long-lived heap frozen out of the collector,
and numpy's BLAS kept to one thread."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

from privault.interfaces.cli.serve import _warm_up
from tests.helpers import fake_vault


def test_serve_loads_its_engines_then_freezes_the_heap(tmp_path: Path) -> None:
    vault = fake_vault(tmp_path / "v.db")  # no chat model installed: warned, not fatal
    try:
        gc.unfreeze()
        assert vault.privacy._detector is None
        _warm_up(vault, chat_threads=1)
        assert vault.privacy._detector is not None  # the detector too, not only the embedder
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        vault.close()


def test_a_process_that_opens_a_vault_keeps_numpy_s_blas_to_one_thread(tmp_path: Path) -> None:
    # In a process of its own: the limit is process-wide and stays. `serve`, the CLI and
    # programs all open their vault through `Vault.open`.
    script = (
        "import json, sys; from pathlib import Path\n"
        "from threadpoolctl import threadpool_info\n"
        "from tests.helpers import fake_vault\n"
        "fake_vault(Path(sys.argv[1])).close()\n"
        "print(json.dumps([i['num_threads'] for i in threadpool_info() "
        "if i['user_api'] == 'blas']))"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "v.db")],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    threads = json.loads(ran.stdout)
    assert threads and set(threads) == {1}  # numpy's BLAS is loaded, and on one thread
