"""Lanes (attentive/answer/lanes.py): a call's batches answered on several threads at once, every batch exactly once,
the largest first, an error of one batch raised after every lane stopped; and an exported model answering on several
lanes gives bitwise the answers of one."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import attentive
from attentive.answer import onnx_backend
from attentive.answer.lanes import Lanes
from attentive.onnx_format.write import export

from ..helpers import tiny_overrides

BATCHES = [np.array([0, 1]), np.array([2, 3, 4]), np.array([5]), np.array([6, 7])]
WIDTHS = [3, 10, 40, 5]  # padded work: 6, 30, 40, 10


def test_one_lane_answers_the_batches_in_order_on_the_callers_thread():
    seen = []
    Lanes(1).run(BATCHES, WIDTHS, lambda batch: seen.append((batch.tolist(), threading.get_ident())))
    assert seen == [(batch.tolist(), threading.get_ident()) for batch in BATCHES]


def test_lanes_answer_every_batch_once_the_largest_first_and_two_at_a_time():
    both_in_flight = threading.Barrier(2, timeout=10)  # the two largest batches must run at the same time
    seen, threads = [], set()

    def answer(batch):
        seen.append(batch.tolist())
        threads.add(threading.get_ident())
        if len(seen) <= 2:
            both_in_flight.wait()

    Lanes(2).run(BATCHES, WIDTHS, answer)
    assert sorted(seen) == sorted(batch.tolist() for batch in BATCHES)
    assert sorted(seen[:2]) == [[2, 3, 4], [5]]  # the largest by rows x width first
    assert len(threads) == 2 and threading.get_ident() in threads


def test_an_error_in_one_lane_is_raised_after_every_lane_stopped():
    started, finished = [], []

    def answer(batch):
        started.append(batch.tolist())
        if batch.tolist() == [5]:
            raise ValueError("bad batch")
        time.sleep(0.05)  # still answering when the bad batch fails
        finished.append(batch.tolist())

    lanes = Lanes(3)
    with pytest.raises(ValueError, match="bad batch"):
        lanes.run(BATCHES, WIDTHS, answer)
    assert [5] in started and [5] not in finished
    assert sorted(finished) == sorted(batch for batch in started if batch != [5])  # none was still running
    seen = []
    lanes.run(BATCHES, WIDTHS, lambda batch: seen.append(batch.tolist()))  # the lanes answer the next call
    assert sorted(seen) == sorted(batch.tolist() for batch in BATCHES)


def test_a_call_does_not_wait_for_a_worker_busy_with_another_call():
    lanes, release = Lanes(2), threading.Event()
    busy = lanes._workers().submit(release.wait, 10)  # another call's lane holds the only worker
    seen, done = [], threading.Event()
    caller = threading.Thread(target=lambda: (lanes.run(BATCHES, WIDTHS, lambda b: seen.append(threading.get_ident())),
                                              done.set()))
    caller.start()
    assert done.wait(5), "the call waited for the busy worker"
    assert seen == [caller.ident] * len(BATCHES) and not busy.done()
    release.set()
    caller.join()


@pytest.mark.parametrize("int8", [False, True])
def test_an_exported_model_on_three_lanes_answers_bitwise_as_on_one(sst2_small, tmp_path, int8):
    model = attentive.train(sst2_small, "default", overrides=tiny_overrides("default") + ["train.epochs=1"],
                            show_progress=False)
    folder = export(model, tmp_path / "onnx", int8=int8)
    texts = [example.text for example in sst2_small.splits["dev"]]
    one, three = onnx_backend.load(folder, int8=int8, threads=1), onnx_backend.load(folder, int8=int8, threads=3)
    assert one.lanes.count == 1 and three.lanes.count == 3
    np.testing.assert_array_equal(one.predict_proba(texts, batch_size=16), three.predict_proba(texts, batch_size=16))
    for ours, theirs in zip(one.explain(texts, batch_size=16), three.explain(texts, batch_size=16)):
        np.testing.assert_array_equal(ours.attention, theirs.attention)
