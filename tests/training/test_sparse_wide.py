"""The n-gram channel trained by its rows (attentive/training/sparse_wide.py): global clipping over sparse and dense
gradients, the paired optimizer's checkpoint, and a real training leaving unseen rows untouched."""
from __future__ import annotations

import copy

import torch
from torch import nn

from attentive.training.sparse_wide import PairedOptimizer, clip_gradients, set_sparse


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.wide = nn.Module()
        self.wide.rows = nn.Embedding(50, 3)
        self.head = nn.Linear(4, 3)

    def forward(self, ids: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return self.wide.rows(ids).sum(1) + self.head(x)


def gradients(model: Tiny, sparse: bool) -> None:
    torch.manual_seed(1)
    set_sparse(model.wide, sparse)
    model.zero_grad(set_to_none=True)
    ids, x = torch.tensor([[1, 2, 2, 7], [3, 7, 9, 9]]), torch.randn(2, 4)
    (model(ids, x) ** 2).sum().mul(10).backward()


def test_clipping_sparse_gradients_matches_torch_on_dense_ones():
    torch.manual_seed(0)
    dense = Tiny()
    sparse = copy.deepcopy(dense)
    gradients(dense, False)
    gradients(sparse, True)
    assert sparse.wide.rows.weight.grad.is_sparse
    expected = torch.nn.utils.clip_grad_norm_(dense.parameters(), 0.5)
    total = clip_gradients(sparse.parameters(), 0.5)
    assert torch.allclose(total, expected)
    assert expected > 1  # the clip did scale
    assert torch.allclose(sparse.wide.rows.weight.grad.to_dense(), dense.wide.rows.weight.grad, atol=1e-6)
    assert torch.allclose(sparse.head.weight.grad, dense.head.weight.grad, atol=1e-6)


def paired(model: Tiny) -> PairedOptimizer:
    return PairedOptimizer(torch.optim.Adam(model.head.parameters(), lr=0.01),
                           torch.optim.SparseAdam(model.wide.parameters(), lr=0.1))


def test_the_paired_optimizer_resumes_from_its_state_dict_as_if_never_stopped():
    torch.manual_seed(0)
    model = Tiny()
    optimizer = paired(model)
    for _ in range(3):
        gradients(model, True)
        optimizer.step()
    state = copy.deepcopy(optimizer.state_dict())
    assert len(state["param_groups"]) == 2 and sorted(state["state"]) == [0, 1, 2]  # head weight, bias; the rows
    resumed_model = copy.deepcopy(model)
    resumed = paired(resumed_model)
    resumed.load_state_dict(state)
    for each, its_optimizer in ((model, optimizer), (resumed_model, resumed)):
        gradients(each, True)
        its_optimizer.step()
    for a, b in zip(model.parameters(), resumed_model.parameters()):
        assert torch.equal(a, b)


def test_lazy_adam_leaves_rows_no_text_holds_untouched():
    torch.manual_seed(0)
    model = Tiny()
    nn.init.zeros_(model.wide.rows.weight)
    optimizer = paired(model)
    for _ in range(5):
        gradients(model, True)
        optimizer.step()
    touched = model.wide.rows.weight.abs().sum(1) > 0
    assert touched.nonzero().flatten().tolist() == [1, 2, 3, 7, 9]
