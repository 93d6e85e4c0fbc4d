"""An exported graph's linearised evidence (attentive/models/linearised.py), computed only when a call asks for it.

ONNX Runtime runs every node of a graph whatever outputs a call fetches, and the evidence costs about as much as
the attention's pooling (a product of each text's states with its head's gradient), which a call of `predict_proba`
does not need. `attentive export` therefore moves the nodes that only the "evidence" output needs into
the then-branch of an ONNX `If` on a boolean input, EVIDENCE_WANTED; the else-branch gives an empty tensor. The
runtime feeds True only where it fetches the evidence (`RuntimeModel.outputs`). The move is made on each written
graph, the int8 one after quantisation, so its weights are quantised as the rest (a branch's own weights would
not be), and a weight the branch alone reads that is another one transposed (the head's first layer, which the
quantiser stores once for the forward pass and once for the gradient) is read as that one transposed.
"""
from __future__ import annotations

from pathlib import Path

EVIDENCE, EVIDENCE_WANTED = "evidence", "evidence_wanted"


def evidence_on_demand(path: Path) -> None:
    """Rewrite the graph at `path` (which has an "evidence" output) so that its evidence-only nodes run in an `If`
    on the input EVIDENCE_WANTED (see the module's docstring)."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(path))
    graph = model.graph
    producer = {name: index for index, node in enumerate(graph.node) for name in node.output}

    def ancestors(names: list[str]) -> set[int]:
        found: set[int] = set()
        pending = list(names)
        while pending:
            index = producer.get(pending.pop())
            if index is not None and index not in found:
                found.add(index)
                pending.extend(graph.node[index].input)
        return found

    shared = ancestors([output.name for output in graph.output if output.name != EVIDENCE])
    moved = sorted(ancestors([EVIDENCE]) - shared)  # in the graph's own (topological) order
    branch = [graph.node[index] for index in moved]
    for node in branch:
        node.output[:] = [f"{EVIDENCE}_computed" if name == EVIDENCE else name for name in node.output]
    leaving = set(moved)
    kept = [node for index, node in enumerate(graph.node) if index not in leaving]
    branch = _transposes_shared(graph, branch, kept) + branch
    computed = helper.make_graph(branch, "evidence_computed", [],
                                 [helper.make_tensor_value_info(f"{EVIDENCE}_computed", TensorProto.FLOAT, None)])
    nothing = helper.make_node("Constant", [], [f"{EVIDENCE}_skipped"],
                               value=helper.make_tensor("nothing", TensorProto.FLOAT, [0, 0], []))
    skipped = helper.make_graph([nothing], "evidence_skipped", [],
                                [helper.make_tensor_value_info(f"{EVIDENCE}_skipped", TensorProto.FLOAT, None)])
    del graph.node[:]
    graph.node.extend([*kept, helper.make_node("If", [EVIDENCE_WANTED], [EVIDENCE], then_branch=computed,
                                               else_branch=skipped)])
    graph.input.append(helper.make_tensor_value_info(EVIDENCE_WANTED, TensorProto.BOOL, []))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _transposes_shared(graph, branch: list, kept: list) -> list:
    """Transpose nodes that stand, in the branch, for the weights it alone reads which are another weight of the graph
    transposed (removed from the graph's initializers): the quantiser stores the head's first layer twice, as the
    forward pass reads it (transposed) and as the gradient does (W1 m and uᵀ W1), the same int8 values; kept once,
    the int8 export is no larger for the evidence than by its few small nodes."""
    import numpy as np
    from onnx import helper, numpy_helper

    weights = {init.name: init for init in graph.initializer}
    outside = {name for node in kept for name in node.input}
    alone = sorted({name for node in branch for name in node.input} - outside)
    found = []
    for name in alone:
        mine = numpy_helper.to_array(weights[name]) if name in weights else None
        if mine is None or mine.ndim != 2:
            continue
        for other in sorted(outside & set(weights)):
            if tuple(weights[other].dims) != mine.shape[::-1]:  # read only a weight of the transposed shape
                continue
            theirs = numpy_helper.to_array(weights[other])
            if theirs.dtype == mine.dtype and np.array_equal(theirs.T, mine):
                found.append(helper.make_node("Transpose", [other], [name]))
                graph.initializer.remove(weights[name])
                break
    return found
