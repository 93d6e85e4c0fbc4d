"""Worker processes forked from a server that imported their modules once (attentive/util/processes.py)."""
from __future__ import annotations

import multiprocessing
import subprocess
import sys
import textwrap

from attentive.util import processes

# Run in a process of its own, whose fork server this call starts: a worker finds `colorsys` imported (nothing else
# imports it), by the server, before the worker's own code ran.
SCRIPT = textwrap.dedent("""
    import sys
    from attentive.util.processes import worker_context

    def check():
        sys.exit(0 if "colorsys" in sys.modules else 3)

    if __name__ == "__main__":
        context = worker_context(["colorsys"])
        worker = context.Process(target=check)
        worker.start()
        worker.join(60)
        print(context.get_start_method(), worker.exitcode)
""")


def test_workers_fork_from_a_server_that_imported_the_preloaded_modules(tmp_path):
    script = tmp_path / "start.py"
    script.write_text(SCRIPT, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["forkserver", "0"]


def test_a_platform_without_a_fork_server_spawns(monkeypatch):
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert processes.worker_context(["attentive"]).get_start_method() == "spawn"
