"""Trainable parameter counts of an `AlbertConfig`, without building the model.

Exactly the count of `AlbertEncoder(config).count_params()` (encoder + pooler, the
figure the paper reports; tests check both agree for every sharing mode), in closed form so
that BERT-xlarge's 1.27 billion parameters can be counted without allocating them.

Example:
>>> from albert_tf.config import AlbertConfig
>>> f"{count_encoder_parameters(AlbertConfig.preset('albert_base')):,}"
'11,683,584'
>>> f"{count_encoder_parameters(paper_shape('not_shared', 768)):,}"
'109,081,344'
"""

from __future__ import annotations

from albert_tf.config import AlbertConfig


def _dense(inputs: int, outputs: int) -> int:
    return inputs * outputs + outputs


def embedding_parameters(config: AlbertConfig) -> int:
    """Word, position and token-type tables, their LayerNorm, and the E -> H projection."""
    tables = (config.vocab_size + config.max_position_embeddings + config.type_vocab_size) * (
        config.embedding_size
    )
    projection = 0
    if config.embedding_size != config.hidden_size:
        projection = _dense(config.embedding_size, config.hidden_size)
    return tables + 2 * config.embedding_size + projection


def attention_parameters(config: AlbertConfig) -> int:
    """Query, key, value, output projections and the LayerNorm after them."""
    return 4 * _dense(config.hidden_size, config.hidden_size) + 2 * config.hidden_size


def feed_forward_parameters(config: AlbertConfig) -> int:
    """H -> I -> H and the LayerNorm after them."""
    hidden, inner = config.hidden_size, config.intermediate_size
    return _dense(hidden, inner) + _dense(inner, hidden) + 2 * hidden


def count_encoder_parameters(config: AlbertConfig) -> int:
    """Embeddings + distinct Transformer sub-layers (as `sharing` says) + pooler."""
    shared = config.num_hidden_groups * config.inner_group_num
    per_layer = config.num_hidden_layers * config.inner_group_num
    attention_copies = shared if config.sharing in ("all_shared", "shared_attention") else per_layer
    ffn_copies = shared if config.sharing in ("all_shared", "shared_ffn") else per_layer
    return (
        embedding_parameters(config)
        + attention_copies * attention_parameters(config)
        + ffn_copies * feed_forward_parameters(config)
        + _dense(config.hidden_size, config.hidden_size)
    )


def paper_convention_count(config: AlbertConfig) -> int:
    """The count as the paper reports it: without the pooler for not-shared (BERT-style)
    models, with it otherwise.

    A finding, not a documented rule: with it, every not-shared figure of Tables 1-4
    (BERT-base 108M, BERT-large 334M, not-shared E = 64/128/256/768: 87/89/93/108M) equals
    ours rounded to millions, while the shared models' figures need the pooler (ALBERT-base
    11.68M -> 12M).

    >>> paper_convention_count(AlbertConfig.preset("bert_base"))
    108490752
    """
    count = count_encoder_parameters(config)
    if config.sharing == "not_shared":
        count -= _dense(config.hidden_size, config.hidden_size)
    return count


def paper_shape(sharing: str, embedding_size: int, preset: str = "albert_base") -> AlbertConfig:
    """The paper's ablation model: a preset's shape (V = 30000) with this sharing and E."""
    return AlbertConfig.preset(preset, sharing=sharing, embedding_size=embedding_size)


def millions(count: int) -> str:
    """The paper's rounding: `12M`, `108M`, `1270M`.

    >>> millions(11_683_584), millions(1_270_000_000)
    ('12M', '1270M')
    """
    return f"{round(count / 1e6)}M"
