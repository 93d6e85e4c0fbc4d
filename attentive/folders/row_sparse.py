"""Tables saved by their nonzero rows: most of a model's hashed n-gram table is never touched by training.

The n-gram channel (attentive/models/wide.py) starts every row at zero and a row moves only when a training text hits
its bucket, so on short-text data most rows stay zero after training. A two-dimensional floating tensor is therefore
written as the indices of its nonzero rows (`NAME.nonzero_rows`, int32, increasing) and those rows
(`NAME.nonzero_values`) whenever that takes less than half its dense bytes, and rebuilt exactly on loading. The file
stays a plain safetensors file; the network, its training and its export see the dense table.
"""
from __future__ import annotations

import torch

from ..errors import AttentiveError

ROWS, VALUES = ".nonzero_rows", ".nonzero_values"


def packed(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """`state` with every mostly-zero table replaced by its nonzero rows and their indices."""
    out = {}
    for name, tensor in state.items():
        if tensor.ndim == 2 and tensor.is_floating_point():
            kept = (tensor != 0).any(1)
            stored = int(kept.sum()) * (tensor.shape[1] * tensor.element_size() + 4)
            if stored < tensor.numel() * tensor.element_size() / 2:
                out[name + ROWS] = kept.nonzero().squeeze(1).to(torch.int32)
                out[name + VALUES] = tensor[kept].contiguous()
                continue
        out[name] = tensor
    return out


def dense_shapes(shapes: dict[str, tuple[int, ...]], dtypes: dict[str, str], expected: dict[str, tuple[int, ...]],
                 path) -> tuple[dict[str, tuple[int, ...]], dict[str, str]]:
    """The file's tensor shapes and dtypes as the network sees them (each packed pair as its dense table of the
    `expected` size); a pair that cannot be one table is an error naming the file."""
    shapes, dtypes = dict(shapes), dict(dtypes)
    for rows_name in [name for name in shapes if name.endswith(ROWS)]:
        name = rows_name[: -len(ROWS)]
        values_name = name + VALUES
        if values_name not in shapes or name not in expected or len(expected[name]) != 2:
            raise AttentiveError(f"{path}: tensor {rows_name} has no {values_name} beside it, or the model has no "
                                 f"table {name}")
        rows, values = shapes.pop(rows_name), shapes.pop(values_name)
        if dtypes.pop(rows_name) != "I32" or len(values) != 2 or rows != (values[0],) \
                or values[0] > expected[name][0]:
            raise AttentiveError(f"{path}: tensors {rows_name} {rows} and {values_name} {values} are not the rows "
                                 f"of a {expected[name]} table")
        shapes[name], dtypes[name] = (expected[name][0], values[1]), dtypes.pop(values_name)
    return shapes, dtypes


def unpacked(tensors: dict[str, torch.Tensor], shapes: dict[str, tuple[int, ...]], path) -> dict[str, torch.Tensor]:
    """`tensors` with each packed pair rebuilt as its dense table of `shapes` (as `dense_shapes` gives them); row
    indices that are not increasing or lie outside the table are an error naming the file."""
    out = {name: tensor for name, tensor in tensors.items() if not name.endswith((ROWS, VALUES))}
    for rows_name in [name for name in tensors if name.endswith(ROWS)]:
        name = rows_name[: -len(ROWS)]
        rows, values = tensors[rows_name].long(), tensors[name + VALUES]
        if len(rows) and (int(rows[0]) < 0 or int(rows[-1]) >= shapes[name][0] or not bool((rows.diff() > 0).all())):
            raise AttentiveError(f"{path}: tensor {rows_name} holds row indices that are not increasing or lie "
                                 f"outside its {shapes[name][0]} rows")
        table = torch.zeros(shapes[name], dtype=values.dtype)
        table[rows] = values
        out[name] = table
    return out
