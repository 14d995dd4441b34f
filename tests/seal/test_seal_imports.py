"""The seal layer stays headless: bytes and keys, no UI, no database, no deck parsing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import infracards.seal


def test_seal_imports_no_ui_database_yaml_or_other_infracards_module() -> None:
    code = "import json, sys, infracards.seal; print(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(Path(infracards.seal.__file__).parents[2])}
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    modules = set(json.loads(result.stdout))
    assert not {"textual", "sqlmodel", "sqlalchemy", "yaml", "platformdirs"} & modules
    ours = {m for m in modules if m.startswith("infracards.")}
    assert {m for m in ours if not m.startswith(("infracards.seal", "infracards.errors"))} == set()
