"""The benchmarks: scripts that train, time and compare, each writing benchmarks/results/*.json.

OpenBLAS's idle threads spin after each call and slow the next system timed on those cores
(benchmarks/DECISIONS.md, "OpenBLAS's spinning threads"), so every benchmark process tells them to sleep at once."""
import os

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")  # 2^4 cycles: the least OpenBLAS takes
