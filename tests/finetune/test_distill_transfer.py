"""The transfer set of `albert-tf distill`: the task's training examples plus `--unlabeled_file`'s,
whose label weight is 0 (the teacher's outputs are all they teach), and Keras's `Distiller`
made to apply that weight to the label loss."""

from __future__ import annotations

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.errors import UserError
from albert_tf.finetune.distillation.distillation import LabelWeightedDistiller
from albert_tf.finetune.distillation.transfer_set import (
    UNLABELED_COUNT,
    read_unlabeled,
    with_unlabeled,
)
from albert_tf.finetune.tagging.word_pieces import IGNORE_LABEL
from albert_tf.finetune.task_family import TrainingData
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT
from tests.finetune.conftest import write_lines


def test_unlabeled_file_layouts(tmp_path):
    path = write_lines(tmp_path / "pairs.txt", ["a film\tits review", "", "one\ttwo "])
    pairs = read_unlabeled(path, "classification", is_pair=True)
    assert pairs.texts == (("a film", "its review"), ("one", "two"))
    assert read_unlabeled(path, "tagging").texts == (("a", "film", "its", "review"), ("one", "two"))
    with pytest.raises(UserError, match="does not apply to multiple_choice runs"):
        read_unlabeled(path, "multiple_choice")
    with pytest.raises(UserError, match=r"two texts and one tab.*bad\.txt:2"):
        read_unlabeled(
            write_lines(tmp_path / "bad.txt", ["x\ty", "a\tb\tc"]), "classification", True
        )
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n")
    with pytest.raises(UserError, match="not UTF-8"):
        read_unlabeled(str(tmp_path / "latin1.txt"), "classification")


def test_unlabeled_pair_line_without_tab_names_its_line(tmp_path):
    path = write_lines(tmp_path / "pairs.txt", ["a\tb", "", "no tab"])
    with pytest.raises(UserError, match=r"pairs\.txt:3"):
        read_unlabeled(path, "classification", is_pair=True)


def test_classification_transfer_set_adds_weight_zero_examples(tmp_path, tiny_model_file):
    from albert_tf.tokenization.text_features import AlbertTextFeatures

    featurizer = AlbertTextFeatures(tiny_model_file, 8)
    labeled = [("good film", 1), ("bad film", 0), ("fine", 1)]
    columns = [tf.constant([text for text, _ in labeled])]
    features = featurizer(columns)
    examples = tf.data.Dataset.from_tensor_slices(
        (features, np.array([label for _, label in labeled], "int32"))
    )
    data = TrainingData(examples, 3, {"x": 1})
    unlabeled = read_unlabeled(
        write_lines(tmp_path / "more.txt", ["a film", "another film"]), "classification"
    )
    transfer = with_unlabeled(data, unlabeled, featurizer)
    assert transfer.count == 5 and transfer.results == {"x": 1, UNLABELED_COUNT: 2}
    elements = list(transfer.examples.as_numpy_iterator())
    assert [float(weight) for _, _, weight in elements] == [1, 1, 1, 0, 0]
    assert [int(label) for _, label, _ in elements] == [1, 0, 1, 0, 0]


def test_tagging_transfer_set_ignores_every_position(tmp_path, tiny_model_file):
    from albert_tf.finetune.tagging.datasets import training_windows
    from albert_tf.finetune.tagging.word_pieces import WordPieceAligner
    from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer

    aligner = WordPieceAligner(AlbertTextTokenizer(proto=tiny_model_file), 8)
    windows, count = training_windows([["new", "york"]], [[1, 2]], aligner)
    unlabeled = read_unlabeled(write_lines(tmp_path / "more.txt", ["the city"]), "tagging")
    transfer = with_unlabeled(TrainingData(windows, count), unlabeled, aligner)
    elements = list(transfer.examples.as_numpy_iterator())
    assert transfer.count == count + 1 and len(elements) == count + 1
    _, labels, weights = elements[-1]  # One weight per position, as the labels.
    assert weights.shape == labels.shape and not weights.any()
    assert set(labels.tolist()) == {IGNORE_LABEL}
    assert elements[0][2].shape == labels.shape and elements[0][2].all()


def test_label_loss_skips_weight_zero_examples():
    keras.utils.set_random_seed(0)
    teacher = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    student = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    distiller = LabelWeightedDistiller(
        teacher,
        student,
        keras.distillation.LogitsDistillation(2.0, loss=keras.losses.KLDivergence()),
        student_loss_weight=0.5,
    )
    distiller.compile(loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x, y = np.ones((2, 4), "float32"), np.array([0, 2])

    def label_loss(weights):
        distiller.reset_metrics()
        distiller.compute_loss(x, y, distiller(x), weights)
        return float(distiller.student_loss_tracker.result())

    assert label_loss(np.zeros(2, "float32")) == 0.0
    assert label_loss(np.ones(2, "float32")) > 0.0
    assert label_loss(np.array([1.0, 0.0], "float32")) < label_loss(np.ones(2, "float32"))


@pytest.mark.slow  # Over 5 s: a distillation run in a subprocess.
def test_distill_trains_on_unlabeled_text_too(untrained_teacher, tiny_sst2_dir, tmp_path):
    unlabeled = write_lines(tmp_path / "more.txt", [f"a film {i}" for i in range(6)])
    output_dir = tmp_path / "student"
    result = commands.run(
        command_line(
            "distill",
            f"--teacher={untrained_teacher}",
            f"--output_dir={output_dir}",
            f"--data_dir={tiny_sst2_dir}",
            f"--unlabeled_file={unlabeled}",
            "--max_seq_length=16",
            "--student_layers=1",
            "--train_batch_size=2",
            "--num_train_epochs=1",
            "--do_eval=false",
            "--bucket_width=8",
        ),
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results = json.loads(result.stdout[result.stdout.index("{") :])
    # 8 labeled + 6 unlabeled examples: 7 steps of 2 (4 without the unlabeled file).
    assert results["train_examples"] == 14 and results[UNLABELED_COUNT] == 6
    assert results["train_steps"] == 7
    record = json.loads((output_dir / "distillation.json").read_text())
    assert record["unlabeled_examples"] == 6 and record["unlabeled_file"] == unlabeled
    assert keras.saving.load_model(output_dir / "model.keras", compile=False).count_params() > 0
