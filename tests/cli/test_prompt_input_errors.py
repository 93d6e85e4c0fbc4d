"""A mistake in `train`'s input (a missing file, a column the header lacks) is said before PyTorch or scikit-learn is
imported (seconds of imports), so the answer comes at once: each case runs the CLI in a fresh interpreter and asserts
what it had imported when it exited 2, which holds however fast the machine is."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("torch", "sklearn", "attentive.api", "attentive.training.pipeline")
PROBE = """
import json, sys
from attentive.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "imported": [name for name in %r if name in sys.modules]}))
""" % (HEAVY,)


def run_cli(*args: str, cwd) -> tuple[dict, str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=cwd, timeout=120,
                          env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


@pytest.mark.parametrize("case", ["missing file", "bad column"])
def test_a_bad_input_is_refused_before_torch_is_imported(tmp_path, case):
    train = tmp_path / "train.csv"
    if case == "bad column":
        train.write_text("txt,label\na fine film,positive\n")
    found, said = run_cli("train", "--train", str(train), "--out", str(tmp_path / "out"), "--threads", "1",
                          cwd=tmp_path)
    assert found["code"] == 2, said
    assert ("file not found" if case == "missing file" else "no column 'text'") in said
    assert found["imported"] == [], f"imported before the input was checked: {found['imported']}"
    assert not (tmp_path / "out").exists()
