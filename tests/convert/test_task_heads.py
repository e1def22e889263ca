"""Fine-tuned task models <-> Hugging Face and the original TF1 layout: identical outputs.

Each case builds a random-weight Hugging Face task model, loads it into albert_tf, compares
the logits with PyTorch's, writes it back (HF and TF1) and compares again. A new task head
adds a case to `CASES`.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import torch
import transformers

from albert_tf.convert.convert import load_hf_model, load_tf1_model, save_model
from albert_tf.convert.tf1_checkpoint import read_tf1_checkpoint
from tests.convert.test_hf_checkpoint import HF_SHAPES, MAX_POSITIONS, VOCAB_SIZE, padded_batch

TOLERANCE = 1e-5


def random_hf_model(hf_class, seed: int, **config_kwargs):
    """A float32 eval-mode HF model with every parameter random (biases, LayerNorms too)."""
    torch.manual_seed(seed)
    defaults = dict(
        vocab_size=VOCAB_SIZE,
        max_position_embeddings=MAX_POSITIONS,
        hidden_act="gelu_new",
        initializer_range=0.2,
        **HF_SHAPES["base_like"],
    )
    model = hf_class(transformers.AlbertConfig(**{**defaults, **config_kwargs})).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    return model


def torch_logits(model, batch) -> np.ndarray:
    with torch.no_grad():
        outputs = model(
            input_ids=torch.tensor(batch["input_ids"]),
            attention_mask=torch.tensor(batch["input_mask"]),
            token_type_ids=torch.tensor(batch["segment_ids"]),
        )
    if getattr(outputs, "start_logits", None) is not None:  # QA: [B, S, 2] like AlbertSpanQA.
        return torch.stack([outputs.start_logits, outputs.end_logits], dim=-1).numpy()
    return outputs.logits.numpy()


def albert_tf_logits(model, batch) -> np.ndarray:
    features = {
        "input_word_ids": tf.constant(batch["input_ids"], tf.int32),
        "input_mask": tf.constant(batch["input_mask"], tf.int32),
        "input_type_ids": tf.constant(batch["segment_ids"], tf.int32),
    }
    return np.asarray(model(features, training=False))


# name -> (HF class, HF config kwargs, albert_tf class name, original TF1 head tensor names)
CASES = {
    "sequence_classification": (
        transformers.AlbertForSequenceClassification,
        dict(num_labels=3),
        "AlbertClassifier",
        {"output_weights": (3, 32), "output_bias": (3,)},
    ),
    "sequence_regression": (
        transformers.AlbertForSequenceClassification,
        dict(num_labels=1, problem_type="regression"),
        "AlbertClassifier",
        {"output_weights": (1, 32), "output_bias": (1,)},
    ),
    "span_qa": (
        transformers.AlbertForQuestionAnswering,
        {},
        "AlbertSpanQA",
        {"cls/squad/output_weights": (2, 32), "cls/squad/output_bias": (2,)},
    ),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def hf_task_dir(request, tmp_path_factory):
    hf_class, config_kwargs, class_name, tf1_head = CASES[request.param]
    torch_model = random_hf_model(hf_class, seed=len(request.param), **config_kwargs)
    directory = tmp_path_factory.mktemp(f"hf_{request.param}")
    torch_model.save_pretrained(directory)
    return torch_model, str(directory), class_name, tf1_head


def test_hf_task_model_loads_with_identical_logits(hf_task_dir):
    torch_model, directory, class_name, _ = hf_task_dir
    model = load_hf_model(directory)
    assert type(model).__name__ == class_name
    batch = padded_batch()
    expected = torch_logits(torch_model, batch)
    assert np.abs(expected).max() > 0.1, "trivially small logits"
    np.testing.assert_allclose(albert_tf_logits(model, batch), expected, rtol=0, atol=TOLERANCE)


def test_task_model_saves_to_hf_and_back(hf_task_dir, tmp_path):
    torch_model, directory, _, _ = hf_task_dir
    model = load_hf_model(directory)
    out_dir = save_model(model, "hf", str(tmp_path / "hf"))
    reloaded = type(torch_model).from_pretrained(out_dir).eval()
    assert reloaded.config.num_labels == torch_model.config.num_labels
    batch = padded_batch(seed=1)
    np.testing.assert_allclose(
        torch_logits(reloaded, batch), albert_tf_logits(model, batch), rtol=0, atol=TOLERANCE
    )


def test_task_model_round_trips_through_the_original_layout(hf_task_dir, tmp_path):
    _, directory, class_name, tf1_head = hf_task_dir
    model = load_hf_model(directory)
    out_dir = save_model(model, "tf1", str(tmp_path / "tf1"))
    tensors = read_tf1_checkpoint(out_dir)
    assert {name: tensors[name].shape for name in tf1_head} == tf1_head
    reloaded = load_tf1_model(out_dir)
    assert type(reloaded).__name__ == class_name
    batch = padded_batch(seed=2)
    np.testing.assert_allclose(
        albert_tf_logits(reloaded, batch), albert_tf_logits(model, batch), rtol=0, atol=1e-6
    )
    encoder = load_tf1_model(out_dir, heads=False)  # The backbone alone, head skipped.
    assert type(encoder).__name__ == "AlbertEncoder"


@pytest.mark.slow  # Over 5 s: converts twice.
def test_converted_task_models_are_finished_runs(tmp_path):
    """`--to=albert_tf` writes a task model's run files: its family's task.json (HF's labels,
    from Hugging Face or TF1 alike) and spm.model. (One writer for every head; the next test
    reads each head's task.json.)"""
    from albert_tf.convert.convert import convert_checkpoint
    from albert_tf.export.export_source import load_export_source

    hf_class, config_kwargs, class_name, _ = CASES["sequence_classification"]
    directory = str(tmp_path / "hf")
    random_hf_model(hf_class, seed=5, **config_kwargs).save_pretrained(directory)
    hf_out = convert_checkpoint("hf", directory, "albert_tf", str(tmp_path / "from_hf"))
    tf1_dir = save_model(load_hf_model(directory), "tf1", str(tmp_path / "tf1"))
    tf1_out = convert_checkpoint("tf1", tf1_dir, "albert_tf", str(tmp_path / "from_tf1"))
    for converted in (hf_out, tf1_out):
        source = load_export_source(converted)
        assert type(source.model).__name__ == class_name and source.task["do_lower_case"]
    hf_task = load_export_source(hf_out).task
    assert hf_task["problem"] == "classification"
    assert hf_task["labels"] == ["LABEL_0", "LABEL_1", "LABEL_2"]


def test_every_head_writes_a_task_json_its_family_reads():
    from albert_tf.config import AlbertConfig
    from albert_tf.convert.convert import converted_task_json
    from albert_tf.convert.task_heads import TASK_HEADS
    from albert_tf.finetune.families import get_family
    from albert_tf.models.encoder import AlbertEncoder
    from tests.conftest import TINY_ALBERT

    for head in TASK_HEADS:
        model = head.build(AlbertEncoder(AlbertConfig(**TINY_ALBERT)), {"num_labels": 2})
        task = converted_task_json(model, {"id2label": {"0": "no", "1": "yes"}}, False, 48)
        info = get_family(task["family"]).info_class.from_json(task)
        assert info.max_seq_length == 48 and info.do_lower_case is False, head.hf_architecture
