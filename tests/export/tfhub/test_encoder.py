"""The TF Hub encoder's float32 parts, and the sources export_tfhub refuses before writing."""

from __future__ import annotations

import numpy as np
import pytest

from albert_tf.config import AlbertConfig
from albert_tf.errors import UserError
from albert_tf.export.export_source import ExportSource
from albert_tf.export.tfhub.encoder import float32_parts
from albert_tf.export.tfhub.export import export_tfhub
from albert_tf.models import AlbertEncoder, AlbertPretrainer
from tests.conftest import TINY_ALBERT

CONFIG = AlbertConfig(**{**TINY_ALBERT, "inner_group_num": 2})


def test_float32_parts_of_a_mixed_precision_model():
    model = AlbertPretrainer(AlbertEncoder(CONFIG, dtype="mixed_bfloat16"))
    encoder, head = float32_parts(model)
    assert encoder.compute_dtype == "float32" and head.compute_dtype == "float32"
    assert encoder.output_all_layers
    assert head.token_embedding is encoder.embeddings.word_embeddings
    for copy, original in ((encoder, model.encoder), (head, model.masked_lm_head)):
        for a, b in zip(copy.get_weights(), original.get_weights(), strict=True):
            np.testing.assert_array_equal(a, b)


def test_bad_sources_are_one_clear_error_and_write_nothing(tmp_path, tiny_model_file):
    export_dir = tmp_path / "out"
    small = AlbertEncoder(CONFIG.replace(vocab_size=50))
    with pytest.raises(UserError, match="has 300 pieces but the encoder's vocab_size is 50"):
        export_tfhub(str(export_dir), ExportSource(small, tiny_model_file))
    with pytest.raises(UserError, match="no SentencePiece model came with the model"):
        export_tfhub(str(export_dir), ExportSource(small))
    assert list(tmp_path.iterdir()) == []
