"""The tagging run as ONNX: ONNX Runtime and OpenVINO give the SavedModel's logits and, with
the words' first pieces taken on the host, its tags."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.export.onnx.runner import OnnxModel
from albert_tf.finetune.tagging.word_pieces import WordPieceAligner, gather_word_logits
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer
from tests.finetune.conftest import onnx_export_of
from tests.finetune.tagging.test_serving import WORDS, padded

pytestmark = pytest.mark.slow  # Needs the trained tagging run.


@pytest.fixture(scope="module")
def exported(tagging_run, tmp_path_factory):
    """(task.json, ONNX directory, features, alignment, SavedModel logits and word tags)."""
    output_dir, results = tagging_run
    task, onnx_dir = onnx_export_of(tagging_run, tmp_path_factory, "tagging_onnx")
    tokenizer = AlbertTextTokenizer(
        proto=os.path.join(output_dir, "spm.model"), do_lower_case=task["do_lower_case"]
    )
    features, alignment = WordPieceAligner(tokenizer, task["max_seq_length"])(
        tf.ragged.constant(WORDS, dtype=tf.string)
    )
    served = tf.saved_model.load(results["saved_model"]).signatures
    expected = served["serving_default"](**features)["logits"].numpy()
    words, num_words = padded(WORDS)
    tags = served["tag_words"](words=words, num_words=num_words)["tag_ids"].numpy()
    return task, onnx_dir, features, alignment, expected, tags


@pytest.mark.slow  # Over 5 s: builds on the tagging run.
@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_float32_onnx_matches_saved_model(exported, runtime):
    task, onnx_dir, features, alignment, expected, tags = exported
    actual = OnnxModel(onnx_dir, runtime=runtime).run({k: v.numpy() for k, v in features.items()})
    worst = float(np.abs(actual["logits"] - expected).max())
    assert worst <= 1e-4
    np.testing.assert_array_equal(actual["tag_ids"], actual["logits"].argmax(-1))
    assert str(actual["tags"][0, 1]) == task["labels"][actual["tag_ids"][0, 1]]
    # Each word's tag is its first piece's: the `tag_words` signature's tags.
    word_logits = gather_word_logits(tf.constant(actual["logits"]), alignment)
    tag_ids = tf.ragged.map_flat_values(tf.argmax, word_logits, axis=-1, output_type=tf.int32)
    np.testing.assert_array_equal(tag_ids.to_tensor(-1).numpy(), tags)
    print(f"worst |difference| {runtime}: {worst:.2e}")
