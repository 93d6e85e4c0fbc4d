"""The benchmarks: scripts that train, time and compare, each writing benchmarks/results/*.json.

OpenBLAS's worker threads (numpy's, and so model2vec's classifier head's) keep spinning for about 2^28 cycles
after each call unless told otherwise. In a timing that takes the systems' passes in turn in one process
(benchmarks/product/deploy/deployable.py `timings`), model2vec's two-thread pass left them spinning on the cores the
next systems ran on: on SST-2 the default's `predict` fell from 59,508 to 52,429 texts/s when model2vec's passes
joined the rotation (TF-IDF + LR, one thread, 58,237 and 58,722), and model2vec itself ran at 19,986 against 28,228
with the threads told to sleep at once (benchmarks/DECISIONS.md, "OpenBLAS's spinning threads"). So every benchmark
process tells them so, before numpy loads OpenBLAS; a value set in the environment wins.
"""
import os

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")  # 2^4 cycles: the least OpenBLAS takes
