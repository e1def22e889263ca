"""`GraphBuilder`: an ONNX graph written node by node, each weight stored once.

ALBERT applies one block's weights at every layer; a converter that traces the model either
stores them once per layer or leaves the sharing to its own de-duplication. Here a weight is
keyed by the Keras variable (or the variables) it comes from, so the 12 layers of ALBERT-base
refer to one set of initializers: the file holds each weight once, as the SavedModel does.

Example:
    >>> import numpy as np
    >>> graph = GraphBuilder()
    >>> x = graph.input("x", "float32", ["batch", 2])
    >>> w = np.eye(2, dtype="float32")
    >>> y = graph.node("MatMul", [x, graph.weight("w", w, key="w")])
    >>> graph.weight("w", w, key="w") == graph.weight("w again", w, key="w")
    True
    >>> graph.output(y, "y", "float32", ["batch", 2])
    >>> [node.op_type for node in graph.model().graph.node]  # The Identity names the output.
    ['MatMul', 'Identity']
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# ONNX Runtime's contrib operators (Attention, SkipLayerNormalization, FastGelu, ...).
MS_DOMAIN = "com.microsoft"
OPSET = 17
_MS_OPSET = 1
_TYPES = {
    "float32": TensorProto.FLOAT,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
    "bool": TensorProto.BOOL,
    "string": TensorProto.STRING,
}


class GraphBuilder:
    """Nodes, initializers, inputs and outputs of one ONNX graph (see the module docstring)."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.outputs: list[onnx.ValueInfoProto] = []
        self._weights: dict[Hashable, str] = {}
        self._names: set[str] = set()

    def _unique(self, name: str) -> str:
        candidate, count = name, 0
        while candidate in self._names:
            count += 1
            candidate = f"{name}_{count}"
        self._names.add(candidate)
        return candidate

    def input(self, name: str, dtype: str, shape: Sequence[int | str]) -> str:
        self._names.add(name)
        self.inputs.append(helper.make_tensor_value_info(name, _TYPES[dtype], list(shape)))
        return name

    def output(self, value: str, name: str, dtype: str, shape: Sequence[int | str]) -> None:
        """Declares graph output `name`, holding `value` (an Identity renames it)."""
        self._names.add(name)
        self.nodes.append(helper.make_node("Identity", [value], [name], name=f"{name}_output"))
        self.outputs.append(helper.make_tensor_value_info(name, _TYPES[dtype], list(shape)))

    def weight(self, name: str, value: Any, key: Hashable | None = None) -> str:
        """An initializer holding `value` (an array, or a Keras variable); stored once per `key`
        (e.g. the variable's identity, so a shared variable is one initializer; None: a new one)."""
        key = ("unkeyed", len(self.initializers)) if key is None else key
        if key not in self._weights:
            array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
            if array.dtype == np.float64:
                array = array.astype(np.float32)
            name = self._unique(name)
            self.initializers.append(numpy_helper.from_array(array, name))
            self._weights[key] = name
        return self._weights[key]

    def constant(self, name: str, value: Any) -> str:
        """A small constant (shapes, axes, label names), not keyed by identity."""
        array = np.asarray(value)
        if array.dtype.kind in "UO":
            array = array.astype(object)
        elif array.dtype == np.float64:
            array = array.astype(np.float32)
        return self.weight(name, array, key=("constant", name, array.dtype.str, repr(array)))

    def node(
        self,
        op_type: str,
        inputs: Sequence[str],
        outputs: int = 1,
        domain: str | None = None,
        name: str | None = None,
        **attributes: Any,
    ) -> Any:
        """Adds one node; returns its output name (or names, when `outputs` > 1)."""
        base = self._unique(name or op_type)
        names = [base] if outputs == 1 else [self._unique(f"{base}_{i}") for i in range(outputs)]
        self.nodes.append(
            helper.make_node(op_type, list(inputs), names, name=base, domain=domain, **attributes)
        )
        return names[0] if outputs == 1 else names

    def model(self, doc_string: str = "") -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, "albert_tf", self.inputs, self.outputs, initializer=self.initializers
        )
        opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, _MS_OPSET)]
        model = helper.make_model(graph, opset_imports=opsets, producer_name="albert_tf")
        model.doc_string = doc_string
        model.ir_version = 8  # What every runtime of the `onnx` extra reads.
        return model
