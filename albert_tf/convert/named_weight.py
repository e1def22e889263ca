"""`NamedWeight`: one model weight with its original TF1 and Hugging Face names.

The layout facts are in `weight_names.py` (encoder, pretraining heads) and
`task_heads.py` (fine-tuned task heads); this module holds the record and the
helpers for the two layers that recur everywhere (Dense, LayerNorm).
"""

from __future__ import annotations

import dataclasses

import keras
import numpy as np


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
