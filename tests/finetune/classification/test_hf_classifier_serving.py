"""A Hugging Face ALBERT classifier, converted, serves raw text with HF's logits.

A random-weight `AlbertForSequenceClassification` with its SentencePiece tokenizer (as a user
would have it, `save_pretrained`) converts to albert_tf (`convert_checkpoint`), exports with
the classification signatures (`export_task_model`), and the SavedModel's logits on raw text
equal PyTorch's on the ids of HF's own tokenizer (which equal the SavedModel's packing).
"""

from __future__ import annotations

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf
import torch
import transformers

from albert_tf.convert.convert import convert_checkpoint
from albert_tf.convert.hf_tokenizer import write_hf_tokenizer
from albert_tf.runtime import Runtime
from albert_tf.tokenization.text_features import AlbertTextFeatures
from tests.classifier_export import export_classifier_model
from tests.conftest import TINY_VOCAB_SIZE

pytestmark = pytest.mark.slow  # Converts a Hugging Face model and exports it.

SEQ_LENGTH = 48  # Long enough that no pair is truncated.
LABELS = ("negative", "neutral", "positive")
TEXTS_A = ["a gorgeous , witty film", "the worst script ever", "warm and funny", "boring"]
TEXTS_B = ["it was good .", "i did not like it at all , sadly", "yes", "the end"]


@pytest.fixture(scope="module")
def hf_classifier_dir(tmp_path_factory, tiny_model_file):
    torch.manual_seed(3)
    config = transformers.AlbertConfig(
        vocab_size=TINY_VOCAB_SIZE,
        embedding_size=16,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=48,
        max_position_embeddings=64,
        hidden_act="gelu_new",
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )
    model = transformers.AlbertForSequenceClassification(config).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    directory = tmp_path_factory.mktemp("hf_classifier")
    model.save_pretrained(directory)
    # The tokenizer files of an HF ALBERT: spiece.model, tokenizer.json, ... (hf_tokenizer.py).
    write_hf_tokenizer(tiny_model_file, str(directory))
    tokenizer = transformers.AutoTokenizer.from_pretrained(directory)
    return model, tokenizer, str(directory)


@pytest.fixture(scope="module")
def converted_dir(hf_classifier_dir, tmp_path_factory) -> str:
    """`convert_checkpoint --from=hf --to=albert_tf` with the HF directory's spiece.model."""
    hf_dir = hf_classifier_dir[2]
    output = str(tmp_path_factory.mktemp("converted") / "albert_tf")
    spm_file = os.path.join(hf_dir, "spiece.model")
    return convert_checkpoint("hf", hf_dir, "albert_tf", output, spm_model_file=spm_file)


@pytest.mark.slow  # Over 5 s: builds on a converted classifier.
@pytest.mark.parametrize("is_pair", [False, True])
def test_converted_hf_classifier_serves_raw_text(
    hf_classifier_dir, converted_dir, tmp_path, is_pair
):
    torch_model, hf_tokenizer, _ = hf_classifier_dir
    converted = converted_dir
    model = keras.saving.load_model(os.path.join(converted, "model.keras"))
    features = AlbertTextFeatures(os.path.join(converted, "spiece.model"), SEQ_LENGTH)
    export_dir = export_classifier_model(
        str(tmp_path / "served"), model, features, labels=("a", "b", "c"), is_pair=is_pair
    )

    texts = [TEXTS_A, TEXTS_B] if is_pair else [TEXTS_A]
    hf_batch = hf_tokenizer(
        *texts, padding="max_length", max_length=SEQ_LENGTH, return_tensors="pt"
    )
    with torch.no_grad():
        expected = torch_model(**hf_batch).logits.numpy()
    packed = features([tf.constant(column) for column in texts])
    np.testing.assert_array_equal(packed["input_word_ids"].numpy(), hf_batch["input_ids"].numpy())
    np.testing.assert_array_equal(
        packed["input_type_ids"].numpy(), hf_batch["token_type_ids"].numpy()
    )

    served = tf.saved_model.load(export_dir)
    if is_pair:
        outputs = served.signatures["classify_text_pair"](
            text_a=tf.constant(TEXTS_A), text_b=tf.constant(TEXTS_B)
        )
    else:
        outputs = served.signatures["classify_text"](text_a=tf.constant(TEXTS_A))
    assert np.abs(expected).max() > 0.1, "trivially small logits"
    np.testing.assert_allclose(outputs["logits"].numpy(), expected, rtol=0, atol=1e-5)


@pytest.mark.slow  # Over 5 s: exports a converted classifier three ways.
def test_converted_classifier_is_a_source_of_every_export(
    hf_classifier_dir, converted_dir, tmp_path
):
    """Converted, the HF classifier is a finished run (task.json with HF's labels, spm.model):
    the SavedModel, LiteRT, TF Hub and ONNX exports read it as they read a run."""
    from albert_tf.export.export_source import load_export_source
    from albert_tf.export.litert.converter import classifier_outputs
    from albert_tf.export.litert.export import litert_outputs
    from albert_tf.export.onnx.export import export_onnx
    from albert_tf.export.onnx.runner import OnnxModel
    from albert_tf.finetune.driver import export_finished_run

    torch_model, hf_tokenizer, _ = hf_classifier_dir
    task = json.load(open(os.path.join(converted_dir, "task.json")))
    assert task["family"] == "classification" and task["labels"] == list(LABELS)
    source = load_export_source(converted_dir)
    assert source.kind == "classifier" and source.spm_model_file.endswith("spm.model")
    assert task["max_seq_length"] == 64  # 128, the original recipe's, within 64 positions.
    length = task["max_seq_length"]
    hf_batch = hf_tokenizer(TEXTS_A, padding="max_length", max_length=length, return_tensors="pt")
    with torch.no_grad():
        expected = torch_model(**hf_batch).logits.numpy()
    # SavedModel: the family's signatures, from the directory alone.
    served = tf.saved_model.load(
        export_finished_run(converted_dir, str(tmp_path / "sm"), runtime=Runtime.plain())
    )
    outputs = served.signatures["classify_text"](text_a=tf.constant(TEXTS_A))
    np.testing.assert_allclose(outputs["logits"].numpy(), expected, atol=1e-5)
    assert {label.decode() for label in outputs["labels"].numpy()} <= set(LABELS)
    # ONNX, text through the export's own pre-step.
    onnx_dir = export_onnx(str(tmp_path / "onnx"), source, ["float32"])
    onnx_outputs = OnnxModel(onnx_dir).run_texts(TEXTS_A)
    np.testing.assert_allclose(onnx_outputs["logits"], expected, atol=1e-4)
    assert list(onnx_outputs["labels"]) == [LABELS[i] for i in expected.argmax(-1)]
    # LiteRT and TF Hub take the same source, as they take a run's (tests/export/litert/,
    # tests/export/tfhub/): the classifier's outputs, its labels, tokenizer and casing.
    assert source.labels == list(LABELS) and litert_outputs(source) is classifier_outputs
    assert source.do_lower_case
