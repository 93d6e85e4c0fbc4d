"""One Python process that has imported the `attentive` CLI and what its commands import (torch, scikit-learn) and
forks a child for each `attentive` command a docs block runs (tests/test_docs.py), so that a page's commands do not
each spend seconds importing torch again.

    python cli_zygote.py serve SOCKET SCRIPT   the server: SCRIPT is the installed `attentive` console script
    python -S cli_zygote.py SOCKET ARG...      a client: runs `attentive ARG...` in a child of the server

The child runs the installed console script itself (runpy, as `__main__`, sys.argv[0] its path) in the client's working
directory, with the client's environment and the client's standard input, output and error (passed over the Unix
socket), so a command reads, writes and exits as the command `attentive ARG...` does: its exit status (or the signal
that ended it) is the client's. SIGTERM, SIGINT and SIGHUP sent to the client (`kill $SERVER`, the test's clean-up)
are passed on to the command; a client that goes away without one takes its command with it.

Only what is imported is shared: each command starts in a fresh fork of the server, which ran nothing but imports.
The client is stdlib only, started with -S (no site-packages), so it costs a few milliseconds, not an import of torch.
"""
from __future__ import annotations

import json
import os
import select
import signal
import socket
import struct
import sys

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
STATUS = struct.Struct("!ii")  # (pid of the command, 0) when it starts; (exit code or -signal, 1) when it ends


def _receive_all(conn: socket.socket) -> tuple[bytes, list[int]]:
    """The client's request: a 4-byte length, then that much JSON; the three standard descriptors come with it."""
    head, fds, _, _ = socket.recv_fds(conn, 4, 3)
    if len(head) < 4:
        raise ConnectionError("no request")
    size = struct.unpack("!I", head)[0]
    body = b""
    while len(body) < size:
        part = conn.recv(size - len(body))
        if not part:
            raise ConnectionError("request cut short")
        body += part
    return body, fds


def _run_command(request: dict, fds: list[int], script: str) -> None:
    """In the forked child: become the command `attentive ARG...`. It ends as that script ends a fresh interpreter:
    its SystemExit (or uncaught exception) unwinds out of the server's frames, none of which catches it, and the
    interpreter exits as it always does (waits for threads, runs atexit, flushes, prints a traceback)."""
    import runpy

    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    for number in FORWARDED + (signal.SIGCHLD,):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as a fresh interpreter has it
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = [script, *request["args"]]
    sys.path[0] = os.path.dirname(script)
    runpy.run_path(script, run_name="__main__")
    sys.exit(0)


def _watch(conn: socket.socket, request: dict, fds: list[int], script: str) -> None:
    """In the forked child that owns one connection: fork the command, tell the client its pid, wait for it (or for the
    client to go away, which ends it) and send the client its exit status."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the server ignores it (no zombies); this child waits for its own
    pid = os.fork()
    if pid == 0:
        conn.close()
        _run_command(request, fds, script)
    for fd in fds:
        os.close(fd)
    conn.sendall(STATUS.pack(pid, 0))
    ended = os.pidfd_open(pid)
    while True:
        readable, _, _ = select.select([ended, conn], [], [])
        if ended in readable:
            break
        if conn in readable and not conn.recv(1):  # the client went away: so does its command
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            break
    _, status = os.waitpid(pid, 0)
    result = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
    try:
        conn.sendall(STATUS.pack(result, 1))
    except OSError:
        pass
    os._exit(0)


def serve(path: str, script: str) -> None:
    """Import what the commands import, then fork a watcher per connection, forever (the test kills the server)."""
    import ctypes
    import gc
    import importlib

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: ends with the test session
    # attentive.api and attentive.answer.torch_backend: torch, scikit-learn, safetensors, the seconds every command
    # would spend; then what training (torch._dynamo, which torch imports on first use), export and the figures
    # import on demand.
    # Nothing that starts a thread of its own (onnxruntime does): a lock such a thread holds at a fork is held for
    # ever in the child, which hangs.
    for name in ("attentive.cli", "attentive.api", "attentive.answer.torch_backend", "torch._dynamo", "onnx",
                 "matplotlib"):
        importlib.import_module(name)
    # What is imported lives as long as a command; frozen, the garbage collector of a command never walks it, so its
    # exit does not write to (and so copy) every page of the fork: a second saved per command, its exit a real one.
    gc.collect()
    gc.freeze()

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # watchers are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        conn, _ = listener.accept()
        try:
            body, fds = _receive_all(conn)
        except (ConnectionError, OSError):
            conn.close()
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            listener.close()
            _watch(conn, json.loads(body), fds, script)
        conn.close()
        for fd in fds:
            os.close(fd)


def client(path: str, args: list[str]) -> None:
    """Run `attentive ARGS` in the server's child; exit as it did."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    body = json.dumps({"args": args, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    socket.send_fds(conn, [struct.pack("!I", len(body))], [0, 1, 2])
    conn.sendall(body)
    command, pending = None, []

    def pass_on(number, _frame):
        if command is None:
            pending.append(number)  # sent on as soon as the command's pid is known
        else:
            os.kill(command, number)

    for number in FORWARDED:
        signal.signal(number, pass_on)
    buffer = b""
    while True:
        try:
            part = conn.recv(STATUS.size)
        except InterruptedError:
            continue
        if not part:
            sys.exit(f"attentive (tests/cli_zygote.py): the server dropped the command {args}")
        buffer += part
        while len(buffer) >= STATUS.size:
            value, ended = STATUS.unpack(buffer[:STATUS.size])
            buffer = buffer[STATUS.size:]
            if not ended:
                command = value
                for number in pending:
                    os.kill(command, number)
                continue
            if value >= 0:
                sys.exit(value)
            signal.signal(-value, signal.SIG_DFL)  # ended by a signal: so is the client, as a shell reports it
            os.kill(os.getpid(), -value)
            sys.exit(128 - value)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3])
    else:
        client(sys.argv[1], sys.argv[2:])
