"""What ops a LiteRT (TFLite) flatbuffer uses, and the export-time check that it runs on device.

The pip interpreters (`ai-edge-litert`, the deprecated `tf.lite.Interpreter`) and the mobile
runtimes without the Select-TF library cannot run Flex ops (`FlexStaticRegexReplace`, ...): a
model with one fails only when it is loaded. `check_ops` reads the op list from the flatbuffer
(its operator codes, through the schema shipped with `ai-edge-litert`) and fails at export,
naming every Flex op and every custom op that no registrar we ship provides.

Example:
    >>> import tensorflow as tf
    >>> converter = tf.lite.TFLiteConverter.from_concrete_functions(
    ...     [tf.function(lambda x: {"y": tf.nn.relu(x)}).get_concrete_function(
    ...         tf.TensorSpec([2], tf.float32))])
    >>> model_ops(converter.convert())
    ['RELU']
"""

from __future__ import annotations

import functools

from albert_tf.errors import UserError

FLEX_PREFIX = "Flex"
# Custom ops tensorflow-text registers for TFLite (`tensorflow_text.tflite_registrar`); the
# text-in models use the first one.
TFTEXT_CUSTOM_OPS = frozenset(
    {
        "TFText>FastSentencepieceTokenize",
        "TFText>FastSentencepieceDetokenize",
        "TFText>FastWordpieceTokenize",
        "TFText>FastBertNormalize",
    }
)


@functools.cache
def _builtin_names() -> dict[int, str]:
    from ai_edge_litert import schema_py_generated as schema  # Optional: the litert extra.

    return {
        code: name
        for name, code in vars(schema.BuiltinOperator).items()
        if not name.startswith("_") and isinstance(code, int)
    }


def model_ops(flatbuffer: bytes) -> list[str]:
    """Sorted distinct op names of every subgraph: builtin names, or custom op codes.

    Example: `['FULLY_CONNECTED', 'GATHER', ..., 'TFText>FastSentencepieceTokenize']`.
    """
    from ai_edge_litert import schema_py_generated as schema  # Optional: the litert extra.

    model = schema.Model.GetRootAs(flatbuffer, 0)
    codes = [model.OperatorCodes(i) for i in range(model.OperatorCodesLength())]
    names = _builtin_names()
    used = set()
    for s in range(model.SubgraphsLength()):
        subgraph = model.Subgraphs(s)
        for o in range(subgraph.OperatorsLength()):
            used.add(_op_name(codes[subgraph.Operators(o).OpcodeIndex()], names))
    return sorted(used)


def _op_name(code, names: dict[int, str]) -> str:
    # Newer schemas store codes >= 127 in `BuiltinCode`; `DeprecatedBuiltinCode` caps at 127.
    builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
    if names.get(builtin) == "CUSTOM":
        return code.CustomCode().decode("utf-8")
    return names.get(builtin, f"BUILTIN_{builtin}")


def unsupported_ops(ops: list[str], allowed_custom_ops: frozenset[str] = TFTEXT_CUSTOM_OPS):
    """The ops of `ops` that a plain LiteRT runtime (+ tensorflow-text ops) cannot run."""
    builtin = set(_builtin_names().values())
    return [op for op in ops if op not in builtin and op not in allowed_custom_ops]


def check_ops(
    flatbuffer: bytes,
    where: str,
    allowed_custom_ops: frozenset[str] = TFTEXT_CUSTOM_OPS,
) -> list[str]:
    """Returns `model_ops(flatbuffer)`; raises when one is a Flex or an unknown custom op.

    Args:
        flatbuffer: the converted model.
        where: what is being exported (named in the error).
        allowed_custom_ops: custom ops the runtime registers (`frozenset()` for ids-in models,
            which must be builtin only).

    Raises:
        UserError: naming the Flex ops (and other unsupported custom ops).
    """
    ops = model_ops(flatbuffer)
    bad = unsupported_ops(ops, allowed_custom_ops)
    if bad:
        flex = [op for op in bad if op.startswith(FLEX_PREFIX)]
        other = [op for op in bad if not op.startswith(FLEX_PREFIX)]
        parts = []
        if flex:
            parts.append(f"Flex (Select TF) ops {', '.join(flex)}")
        if other:
            parts.append(f"unregistered custom ops {', '.join(other)}")
        raise UserError(
            f"the LiteRT model uses {' and '.join(parts)}, which LiteRT runtimes without the "
            "Select-TF library (the ai-edge-litert interpreter included) cannot run",
            where=where,
            fix="express those ops with builtin TFLite ops, or move them out of the model",
        )
    return ops
