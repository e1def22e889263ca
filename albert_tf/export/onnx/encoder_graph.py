"""`encoder_graph`: an `AlbertEncoder` as ONNX Runtime's fused CPU operators, from its weights.

What ONNX Runtime's transformer optimizer makes of BERT, written directly (ALBERT's traced
graph is one it cannot fuse: it finds no attention in a Hugging Face ALBERT export):

* embeddings: `EmbedLayerNormalization` (word + position + token-type lookups, sum and
  LayerNorm in one operator), then the E -> H projection (`MatMul` + `Add`);
* each block: `Attention` (the query, key and value projections as one [H, 3H] matmul, the
  scaled masked softmax and the context, per head), the output projection `MatMul`, then
  `SkipLayerNormalization` (bias + residual + LayerNorm), the intermediate `MatMul`, `FastGelu`
  with its bias (the tanh approximation: albert_tf's "gelu"; "gelu_exact" is `BiasGelu`), the
  output `MatMul` and `SkipLayerNormalization` again;
* the pooler: [CLS] row, `MatMul` + `Add`, `Tanh`.

A shared block's weights are one set of initializers (`GraphBuilder.weight`), referenced by
every layer that applies it (all four `AlbertConfig.sharing` modes follow the encoder's own
objects). Padding is masked with -10000 added to the scores, as `AlbertAttention` does.

With `pooled_only` (classifiers, multiple choice: the head reads [CLS] alone), the last block
computes the [CLS] row only, as `AlbertEncoder.pooled_output` does: its query is taken into
the input space (`q W_k^T . x`, `(sum_t p_t x_t) W_v`), so no keys or values are formed, and
the rest of the block runs on one row: about one layer in L of the work saved.
"""

from __future__ import annotations

import math

import numpy as np

from albert_tf.config import LAYER_NORM_EPSILON
from albert_tf.errors import UserError
from albert_tf.export.onnx.graph_builder import MS_DOMAIN, GraphBuilder
from albert_tf.models.attention import MASK_ADDER
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.transformer_block import AlbertTransformerBlock


def _float32(value) -> np.ndarray:
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value).astype(np.float32)


def _dense(graph: GraphBuilder, x: str, layer, name: str) -> str:
    """`x @ kernel + bias` of a Keras Dense layer."""
    product = graph.node("MatMul", [x, _weight(graph, layer.kernel, f"{name}.kernel")])
    return graph.node("Add", [product, _weight(graph, layer.bias, f"{name}.bias")])


def _weight(graph: GraphBuilder, variable, name: str) -> str:
    """The initializer of one Keras variable (shared variables: one initializer)."""
    return graph.weight(name, _float32(variable), key=id(variable))


def embeddings_graph(graph: GraphBuilder, encoder: AlbertEncoder, ids: str, mask: str, types: str):
    """[B, T] ids -> [B, T, H] embeddings (projected when the encoder projects)."""
    layer = encoder.embeddings
    embedded, _ = graph.node(
        "EmbedLayerNormalization",
        [
            ids,
            types,
            _weight(graph, layer.word_embeddings.embeddings, "word_embeddings"),
            _weight(graph, layer.position_embeddings.embeddings, "position_embeddings"),
            _weight(graph, layer.token_type_embeddings.embeddings, "token_type_embeddings"),
            _weight(graph, layer.layer_norm.gamma, "embeddings.gamma"),
            _weight(graph, layer.layer_norm.beta, "embeddings.beta"),
            mask,
        ],
        outputs=2,
        domain=MS_DOMAIN,
        epsilon=LAYER_NORM_EPSILON,
    )
    if layer.projection is None:
        return embedded
    product = graph.node(
        "MatMul", [embedded, _weight(graph, layer.projection.kernel, "projection.kernel")]
    )
    return graph.node("Add", [product, _weight(graph, layer.projection.bias, "projection.bias")])


def _qkv(graph: GraphBuilder, attention) -> tuple[str, str]:
    """The packed [H, 3H] query/key/value kernel and its [3H] bias (stored once per layer)."""
    parts = (attention.query, attention.key, attention.value)
    key = tuple(id(part.kernel) for part in parts)
    kernel = graph.weight(
        f"{attention.name}.qkv_kernel",
        np.concatenate([_float32(part.kernel) for part in parts], axis=1),
        key=("qkv_kernel", key),
    )
    bias = graph.weight(
        f"{attention.name}.qkv_bias",
        np.concatenate([_float32(part.bias) for part in parts]),
        key=("qkv_bias", key),
    )
    return kernel, bias


def _skip_layer_norm(graph: GraphBuilder, x: str, residual: str, layer_norm, bias) -> str:
    return graph.node(
        "SkipLayerNormalization",
        [
            x,
            residual,
            _weight(graph, layer_norm.gamma, "ln.gamma"),
            _weight(graph, layer_norm.beta, "ln.beta"),
            _weight(graph, bias, "ln.bias"),
        ],
        domain=MS_DOMAIN,
        epsilon=layer_norm.epsilon,
    )


def _feed_forward(graph: GraphBuilder, ffn, x: str) -> str:
    hidden = graph.node("MatMul", [x, _weight(graph, ffn.intermediate.kernel, "ffn.kernel")])
    bias = _weight(graph, ffn.intermediate.bias, "ffn.bias")
    activation = ffn.hidden_act
    if activation in ("gelu", "gelu_new"):  # The tanh approximation, as albert_tf's "gelu".
        hidden = graph.node("FastGelu", [hidden, bias], domain=MS_DOMAIN)
    elif activation == "gelu_exact":
        hidden = graph.node("BiasGelu", [hidden, bias], domain=MS_DOMAIN)
    else:
        hidden = graph.node("Add", [hidden, bias])
        if activation in ("relu", "tanh"):
            hidden = graph.node(activation.capitalize(), [hidden])
        elif activation != "linear":
            raise UserError(f"hidden_act {activation!r} has no ONNX form", where="AlbertConfig")
    output = graph.node("MatMul", [hidden, _weight(graph, ffn.output_dense.kernel, "out.kernel")])
    return _skip_layer_norm(graph, output, x, ffn.layer_norm, ffn.output_dense.bias)


def block_graph(graph: GraphBuilder, block: AlbertTransformerBlock, x: str, mask: str) -> str:
    """One post-LN block over all T rows, as fused operators."""
    attention = block.attention
    kernel, bias = _qkv(graph, attention)
    context = graph.node(
        "Attention",
        [x, kernel, bias, mask],
        domain=MS_DOMAIN,
        num_heads=attention.num_attention_heads,
        mask_filter_value=MASK_ADDER,
    )
    output = graph.node(
        "MatMul", [context, _weight(graph, attention.output_dense.kernel, "attn_out.kernel")]
    )
    x = _skip_layer_norm(graph, output, x, attention.layer_norm, attention.output_dense.bias)
    return _feed_forward(graph, block.ffn, x)


def cls_block_graph(
    graph: GraphBuilder, block: AlbertTransformerBlock, x: str, mask_adder: str
) -> str:
    """The block's output at [CLS] only ([B, T, H] -> [B, H]); see the module docstring.

    The per-head key-bias term `q . b_k` is left out of the scores: it is the same for every
    key, and the softmax over keys does not change under a shift.
    """
    attention = block.attention
    heads, size = attention.num_attention_heads, attention.head_size
    hidden = heads * size
    kernel, qkv_bias = _qkv(graph, attention)
    shape = lambda name, dims: graph.constant(name, np.array(dims, np.int64))  # noqa: E731

    def part(packed: str, index: int, axis: int) -> str:
        """Query (0), key (1) or value (2) part of the packed kernel (axis 1) or bias (0)."""
        bounds = [shape(f"part{index}_start", [index * hidden])]
        bounds += [shape(f"part{index}_end", [(index + 1) * hidden]), shape(f"axis{axis}", [axis])]
        return graph.node("Slice", [packed, *bounds])

    def per_head(kernel_part: str, perm: list[int]) -> str:
        """A [H, H] kernel as [H, N, D], transposed by `perm`."""
        reshaped = graph.node("Reshape", [kernel_part, shape("hnd", [hidden, heads, size])])
        return graph.node("Transpose", [reshaped], perm=perm)

    cls = graph.node("Gather", [x, graph.constant("zero", np.array(0, np.int64))], axis=1)
    # Queries: [B, H] -> [B, N, 1, D].
    query = graph.node("MatMul", [cls, part(kernel, 0, 1)])
    query = graph.node("Add", [query, part(qkv_bias, 0, 0)])
    query = graph.node("Reshape", [query, shape("bn1d", [-1, heads, 1, size])])
    # W_k as [N, D, H] and W_v as [N, H, D] (constant-folded by the runtimes at load).
    key_kernel = per_head(part(kernel, 1, 1), [1, 2, 0])
    value_kernel = per_head(part(kernel, 2, 1), [1, 0, 2])
    value_bias = graph.node("Reshape", [part(qkv_bias, 2, 0), shape("n1d", [heads, 1, size])])
    # Scores [B, N, 1, T] = (q W_k^T) [B, N, 1, H] . x [B, 1, T, H]^T.
    rows = graph.node("Unsqueeze", [x, shape("axis1", [1])])  # [B, 1, T, H]
    query_in = graph.node("MatMul", [query, key_kernel])  # [B, N, 1, H]
    scores = graph.node("MatMul", [query_in, graph.node("Transpose", [rows], perm=[0, 1, 3, 2])])
    scale = graph.constant("scale", np.array(1.0 / math.sqrt(size), np.float32))
    scores = graph.node("Add", [graph.node("Mul", [scores, scale]), mask_adder])
    probs = graph.node("Softmax", [scores], axis=-1)
    mixed = graph.node("MatMul", [probs, rows])  # [B, N, 1, H]
    context = graph.node("Add", [graph.node("MatMul", [mixed, value_kernel]), value_bias])
    context = graph.node("Reshape", [context, shape("bh", [-1, hidden])])
    output = graph.node(
        "MatMul", [context, _weight(graph, attention.output_dense.kernel, "attn_out.kernel")]
    )
    cls = _skip_layer_norm(graph, output, cls, attention.layer_norm, attention.output_dense.bias)
    return _feed_forward(graph, block.ffn, cls)


def _mask_adder(graph: GraphBuilder, mask: str) -> str:
    """[B, T] 1/0 mask -> [B, 1, 1, T] scores adder (0 or -10000), as `attention_mask_adder`."""
    as_float = graph.node("Cast", [mask], to=1)
    adder = graph.node(
        "Mul",
        [
            graph.node("Sub", [graph.constant("one", np.array(1.0, np.float32)), as_float]),
            graph.constant("mask_adder", np.array(MASK_ADDER, np.float32)),
        ],
    )
    return graph.node("Unsqueeze", [adder, graph.constant("axes12", np.array([1, 2], np.int64))])


def encoder_graph(
    graph: GraphBuilder,
    encoder: AlbertEncoder,
    ids: str,
    mask: str,
    types: str,
    pooled_only: bool = False,
) -> dict[str, str]:
    """`{"sequence_output": [B, T, H], "pooled_output": [B, H]}` (only the pooled output when
    `pooled_only`) of the encoder on int32 [B, T] inputs."""
    x = embeddings_graph(graph, encoder, ids, mask, types)
    blocks = [block for row in encoder.layer_blocks for block in row]
    last = len(blocks) - 1 if pooled_only else len(blocks)
    for block in blocks[:last]:
        x = block_graph(graph, block, x, mask)
    outputs = {}
    if pooled_only:
        cls = cls_block_graph(graph, blocks[-1], x, _mask_adder(graph, mask))
    else:
        outputs["sequence_output"] = x
        cls = graph.node("Gather", [x, graph.constant("zero", np.array(0, np.int64))], axis=1)
    outputs["pooled_output"] = graph.node("Tanh", [_dense(graph, cls, encoder.pooler, "pooler")])
    return outputs
