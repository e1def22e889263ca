"""The names of albert_tf's weights in the original TF1 release and in Hugging Face.

`NamedWeight` is one weight with its names; one table (`named_weights`) lists every
weight of an `AlbertEncoder`, `AlbertPretrainer` or task model with its original TF1
checkpoint name and its Hugging Face `transformers` state-dict name, so that both
converters read the same facts.

Layout facts the table encodes:
  * albert_tf and TF1 kernels are [in, out]; Hugging Face `nn.Linear` weights
    are [out, in] (`hf_transpose`). The SOP `output_weights` are [2, H] in all
    three.
  * Hugging Face always has `encoder.embedding_hidden_mapping_in`; the original
    and albert_tf (`embedding_projection="auto"`) have it only when E != H. With
    E == H and no projection it is an identity map here (`hf_constant`), which is
    exactly "no projection"; `embedding_projection="always"` keeps HF's weights.
  * Hugging Face ties `predictions.decoder.weight` to the word embeddings and
    `predictions.decoder.bias` to `predictions.bias` (`hf_aliases`): they are
    accepted when read and not written, like `save_pretrained` does.
  * Fine-tuned task models (classifier, span QA, ...) are an encoder plus a task
    head; `convert/task_heads.py` lists the heads and their name prefixes. Their HF
    keys carry the `albert.` prefix, like a pretrainer's.

Only `sharing="all_shared"` has original/HF counterparts (group g, inner block
j); other sharing modes raise `UserError`.

Example:
>>> encoder = AlbertEncoder(AlbertConfig.preset("albert_tiny"))
>>> [w.tf1_name for w in named_weights(encoder)][:1]
['bert/embeddings/word_embeddings']
"""

from __future__ import annotations

import dataclasses

import keras
import numpy as np

from albert_tf.config import AlbertConfig
from albert_tf.convert.task_heads import TaskHead, task_head_for_model
from albert_tf.errors import UserError
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer

# Hugging Face prefix of the backbone inside task models (`base_model_prefix`).
HF_BASE_PREFIX = "albert."
# Hugging Face keys that are another name for a weight of the table (tied):
# the MLM decoder weight is the word embedding table itself.
HF_TIED_KEYS = {"predictions.decoder.weight": f"{HF_BASE_PREFIX}embeddings.word_embeddings.weight"}


@dataclasses.dataclass(frozen=True)
class NamedWeight:
    """One weight and its names; `variable` is None for an HF-only constant, `hf_name` None for
    a weight the HF architecture lacks (e.g. the pooler of a token classifier)."""

    tf1_name: str | None
    hf_name: str | None
    variable: keras.Variable | None
    hf_transpose: bool = False
    hf_constant: np.ndarray | None = None
    hf_aliases: tuple[str, ...] = ()
    tf1_transpose: bool = False

    @property
    def shape(self) -> tuple[int, ...]:
        if self.variable is None:
            return tuple(self.hf_constant.shape)
        return tuple(self.variable.shape)

    @property
    def hf_shape(self) -> tuple[int, ...]:
        return self.shape[::-1] if self.hf_transpose else self.shape

    @property
    def tf1_shape(self) -> tuple[int, ...]:
        return self.shape[::-1] if self.tf1_transpose else self.shape

    def value(self, transpose: bool = False) -> np.ndarray:
        """The variable as float32, transposed for a layout that stores it the other way round."""
        value = np.asarray(self.variable.numpy(), "float32")
        return value.T if transpose else value

    def assign(self, value: np.ndarray, transpose: bool = False) -> None:
        """Sets the variable from a layout's `value` (stored the other way round: `transpose`)."""
        value = value.T if transpose else value
        self.variable.assign(value.astype(self.variable.dtype))


def dense_weights(tf1: str, hf: str, layer: keras.layers.Dense) -> list[NamedWeight]:
    """Kernel and bias of a Dense layer: TF1 `<tf1>/kernel`, HF Linear `<hf>.weight` [out, in]."""
    return [
        NamedWeight(f"{tf1}/kernel", f"{hf}.weight", layer.kernel, hf_transpose=True),
        NamedWeight(f"{tf1}/bias", f"{hf}.bias", layer.bias),
    ]


def layer_norm_weights(
    tf1: str, hf: str, layer: keras.layers.LayerNormalization
) -> list[NamedWeight]:
    """Gamma and beta of a LayerNorm: TF1 `<tf1>/gamma`, HF `<hf>.weight`."""
    return [
        NamedWeight(f"{tf1}/gamma", f"{hf}.weight", layer.gamma),
        NamedWeight(f"{tf1}/beta", f"{hf}.bias", layer.beta),
    ]


def split_model(model: keras.Model) -> tuple[AlbertEncoder, AlbertPretrainer | None]:
    """(encoder, pretrainer or None) of an `AlbertEncoder`, `AlbertPretrainer` or task model.

    A task model (see `convert/task_heads.py`) is neither: its encoder is `model.encoder`.
    """
    if isinstance(model, AlbertPretrainer):
        return model.encoder, model
    if isinstance(model, AlbertEncoder):
        return model, None
    if isinstance(getattr(model, "encoder", None), AlbertEncoder):
        return model.encoder, None
    raise TypeError(
        f"Expected an AlbertEncoder, AlbertPretrainer or fine-tuned task model, got "
        f"{type(model).__name__}."
    )


def check_convertible(
    config: AlbertConfig, target: str = "the original TF1 release or in Hugging Face"
) -> None:
    """Raises `UserError` when `config`'s sharing has no counterpart in `target`."""
    if config.sharing != "all_shared":
        raise UserError(
            f"sharing={config.sharing!r} has no counterpart in {target}, where whole blocks are "
            "shared by group (sharing='all_shared'); keep such models in albert_tf's own "
            "formats (.keras, checkpoints, SavedModel)."
        )


def _embedding_weights(encoder: AlbertEncoder, hf: str) -> list[NamedWeight]:
    embeddings = encoder.embeddings
    weights = [
        NamedWeight(
            f"bert/embeddings/{name}",
            f"{hf}embeddings.{name}.weight",
            getattr(embeddings, name).embeddings,
        )
        for name in ("word_embeddings", "token_type_embeddings", "position_embeddings")
    ]
    weights += layer_norm_weights(
        "bert/embeddings/LayerNorm", f"{hf}embeddings.LayerNorm", embeddings.layer_norm
    )
    mapping_tf1 = "bert/encoder/embedding_hidden_mapping_in"
    mapping_hf = f"{hf}encoder.embedding_hidden_mapping_in"
    if embeddings.projection is not None:
        weights += dense_weights(mapping_tf1, mapping_hf, embeddings.projection)
    else:  # E == H: no projection is the identity projection.
        hidden = encoder.config.hidden_size
        weights += [
            NamedWeight(
                None, f"{mapping_hf}.weight", None, hf_constant=np.eye(hidden, dtype="float32")
            ),
            NamedWeight(None, f"{mapping_hf}.bias", None, hf_constant=np.zeros(hidden, "float32")),
        ]
    return weights


def _block_weights(block, tf1: str, hf: str) -> list[NamedWeight]:
    attention, ffn = block.attention, block.ffn
    weights = []
    for name in ("query", "key", "value"):
        weights += dense_weights(
            f"{tf1}/attention_1/self/{name}", f"{hf}.attention.{name}", getattr(attention, name)
        )
    weights += dense_weights(
        f"{tf1}/attention_1/output/dense", f"{hf}.attention.dense", attention.output_dense
    )
    weights += layer_norm_weights(
        f"{tf1}/LayerNorm", f"{hf}.attention.LayerNorm", attention.layer_norm
    )
    weights += dense_weights(f"{tf1}/ffn_1/intermediate/dense", f"{hf}.ffn", ffn.intermediate)
    weights += dense_weights(
        f"{tf1}/ffn_1/intermediate/output/dense", f"{hf}.ffn_output", ffn.output_dense
    )
    weights += layer_norm_weights(
        f"{tf1}/LayerNorm_1", f"{hf}.full_layer_layer_norm", ffn.layer_norm
    )
    return weights


def _head_weights(pretrainer: AlbertPretrainer) -> list[NamedWeight]:
    mlm, sop = pretrainer.masked_lm_head, pretrainer.sentence_order_head
    weights = dense_weights("cls/predictions/transform/dense", "predictions.dense", mlm.dense)
    weights += layer_norm_weights(
        "cls/predictions/transform/LayerNorm", "predictions.LayerNorm", mlm.layer_norm
    )
    weights += [
        NamedWeight(
            "cls/predictions/output_bias",
            "predictions.bias",
            mlm.output_bias,
            hf_aliases=("predictions.decoder.bias",),
        ),
        NamedWeight(
            "cls/seq_relationship/output_weights",
            "sop_classifier.classifier.weight",
            sop.output_weights,
        ),
        NamedWeight(
            "cls/seq_relationship/output_bias", "sop_classifier.classifier.bias", sop.output_bias
        ),
    ]
    return weights


def _task_head_weights(head: TaskHead, model: keras.Model) -> list[NamedWeight]:
    """The task head's kernel and bias with their Hugging Face and TF1 names."""
    tf1 = head.tf1_prefix
    return [
        NamedWeight(
            None if tf1 is None else f"{tf1}output_weights",
            f"{head.hf_layer}.weight",
            model.head.kernel,
            hf_transpose=True,
            tf1_transpose=True,
        ),
        NamedWeight(
            None if tf1 is None else f"{tf1}output_bias",
            f"{head.hf_layer}.bias",
            model.head.bias,
        ),
    ]


def named_weights(model: keras.Model) -> list[NamedWeight]:
    """Every weight of `model` (encoder, pretrainer or task model) with its TF1 and HF names.

    HF names carry the `albert.` prefix for a pretrainer (`AlbertForPreTraining`) and a task
    model (e.g. `AlbertForSequenceClassification`), and none for an encoder (`AlbertModel`),
    as `save_pretrained` writes them.
    """
    encoder, pretrainer = split_model(model)
    task_head = task_head_for_model(model)
    config = encoder.config
    check_convertible(config)
    hf = HF_BASE_PREFIX if pretrainer is not None or task_head is not None else ""
    weights = _embedding_weights(encoder, hf)
    for group, blocks in enumerate(encoder.groups):
        for inner, block in enumerate(blocks):
            weights += _block_weights(
                block,
                f"bert/encoder/transformer/group_{group}/inner_group_{inner}",
                f"{hf}encoder.albert_layer_groups.{group}.albert_layers.{inner}",
            )
    pooler = dense_weights("bert/pooler/dense", f"{hf}pooler", encoder.pooler)
    if task_head is not None and not task_head.hf_pooler:
        pooler = [dataclasses.replace(weight, hf_name=None) for weight in pooler]
    weights += pooler
    if pretrainer is not None:
        weights += _head_weights(pretrainer)
    if task_head is not None:
        weights += _task_head_weights(task_head, model)
    return weights
