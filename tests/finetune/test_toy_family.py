"""A fifth task family in a few dozen lines, run end to end through the driver.

"Does the text contain a digit?" over a tiny TSV (`text<TAB>0|1`): the family reads its file,
reuses `AlbertClassifier` and `AlbertTextFeatures`, scores accuracy, writes one prediction per
line and serves `has_digit(text)`; the driver does everything else (lock, checks, training,
task.json, eval results, export). It joins the families the way a family of the package does,
by one line in the families' table (`digit_family`), and nothing else: the driver, a finished
run's task.json and the export of a run find it there. docs/adding_a_task_family.md walks
through this file.
"""

from __future__ import annotations

import dataclasses
import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config_fields import option
from albert_tf.errors import UserError
from albert_tf.finetune import FinetuneConfig, FinetuneTask
from albert_tf.finetune.datasets import evaluation_batches
from albert_tf.finetune.driver import export_finished_run, read_task_info, run_finetuning
from albert_tf.finetune.families import FAMILIES, FamilySource, family_names, get_family
from albert_tf.finetune.task_family import TaskInfo, TaskInputs, TrainingData, family_of_run
from albert_tf.models import AlbertClassifier
from albert_tf.runtime import Runtime
from albert_tf.tokenization.text_features import AlbertTextFeatures
from tests.finetune.conftest import write_lines

WORDS = "the cat sat on a mat in my old red house by sea".split()


@dataclasses.dataclass(frozen=True)
class DigitConfig(FinetuneConfig):
    data_file: str = option("", "TSV of `text<TAB>1 if it holds a digit, else 0`.")


@dataclasses.dataclass(frozen=True)
class DigitInputs(TaskInputs):
    texts: list[str]
    labels: np.ndarray


class DigitTask(FinetuneTask, family="has_digit", config_class=DigitConfig):
    def read_inputs(self, saved):
        rows = [line.split("\t") for line in open(self.config.data_file, encoding="utf-8")]
        texts, labels = [text for text, _ in rows], np.array([int(y) for _, y in rows])
        return DigitInputs(texts, labels)

    def info_values(self, inputs):
        return {"task": "has_digit"}  # TaskInfo's lengths and casing: the config's, the encoder's.

    def featurizer(self, spm_model_file, info):
        return AlbertTextFeatures(spm_model_file, info.max_seq_length, info.do_lower_case)

    def build_model(self, encoder, info, dtype):
        return AlbertClassifier(encoder, 2, dtype=dtype)

    def training_data(self, run):
        texts, labels = run.inputs.texts, run.inputs.labels
        features = tf.data.Dataset.from_tensor_slices(texts).batch(8).map(run.featurizer)
        labels = tf.data.Dataset.from_tensor_slices(labels)
        examples = tf.data.Dataset.zip((features.unbatch(), labels))
        return TrainingData(examples.cache(), len(texts))

    def loss(self, info):
        return keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def _predict(self, run, texts):
        features = tf.data.Dataset.from_tensor_slices(texts).batch(8).map(run.featurizer)
        return run.predict_outputs(evaluation_batches(features.unbatch(), 8)).argmax(-1)

    def evaluate(self, run):
        texts, labels = run.inputs.texts, run.inputs.labels
        return {"dev/accuracy": float(np.mean(self._predict(run, texts) == labels))}

    def predict(self, run):
        path = run.path("predictions.txt")
        write_lines(path, [str(y) for y in self._predict(run, run.inputs.texts)])
        return {"predictions": path}

    def serving_layers(self, run):
        run.featurizer(tf.constant([""]))  # Export needs built layers.
        return [run.featurizer]

    def serving_signatures(self, run, predict, layers):
        [featurizer] = layers

        def has_digit(text):
            logits = tf.cast(predict(featurizer(text)), tf.float32)
            return {"probability": tf.nn.softmax(logits)[:, 1]}

        return {"has_digit": (has_digit, [tf.TensorSpec([None], tf.string)])}


@pytest.fixture(scope="module", autouse=True)
def digit_family():
    """The toy family's line in the families' table while this module's tests run, and no
    longer; a family of the package has the same line in `albert_tf/finetune/families.py`."""
    source = FamilySource(task=f"{__name__}:DigitTask", config=f"{__name__}:DigitConfig")
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(FAMILIES, "has_digit", source)
        yield source


@pytest.fixture(scope="module")
def digit_run(tmp_path_factory, tiny_run_settings):
    """The toy family trained (with length buckets), evaluated, predicted and exported."""
    rng = np.random.default_rng(0)
    lines = []
    for index in range(48):
        words = list(rng.choice(WORDS, size=rng.integers(2, 9)))
        if index % 2:
            words.insert(int(rng.integers(len(words))), str(rng.integers(10, 999)))
        lines.append(f"{' '.join(words)}\t{index % 2}")
    data_file = write_lines(tmp_path_factory.mktemp("digits") / "digits.tsv", lines)
    settings = tiny_run_settings(16, 8, 3e-3, 4, bucket_width=8, export_saved_model=True)
    config = DigitConfig(data_file=data_file, **settings)
    output_dir = str(tmp_path_factory.mktemp("digit_run"))
    return config, output_dir, run_finetuning(config, output_dir, runtime=Runtime.for_machine())


@pytest.mark.slow  # Trains and exports a model (~15 s on 2 cores).
def test_a_new_family_trains_evaluates_predicts_and_serves_raw_text(digit_run):
    config, output_dir, results = digit_run
    assert results["train_examples"] == 48 and results["train_steps"] == 24
    with open(os.path.join(output_dir, "task.json")) as handle:
        assert json.load(handle) == {
            "family": "has_digit",
            "task": "has_digit",
            "max_seq_length": 16,
            "do_lower_case": True,
        }
    with open(os.path.join(output_dir, "eval_results.json")) as handle:
        assert json.load(handle) == {"dev/accuracy": results["dev/accuracy"]}
    rows = [line.split("\t") for line in open(config.data_file, encoding="utf-8")]
    texts, labels = [text for text, _ in rows], np.array([int(label) for _, label in rows])
    predicted = np.array([int(line) for line in open(results["predictions"])])
    assert np.mean(predicted == labels) == results["dev/accuracy"]
    # The SavedModel answers raw text as the Keras model predicted it.
    served = tf.saved_model.load(results["saved_model"]).signatures["has_digit"]
    np.testing.assert_array_equal(served(text=tf.constant(texts))["probability"] > 0.5, predicted)
    # A finished run evaluates again from its files.
    again = config.replace(do_train=False, do_predict=False, export_saved_model=False)
    assert run_finetuning(again, output_dir, runtime=Runtime.for_machine()) == {
        "dev/accuracy": results["dev/accuracy"]
    }


def test_the_families_table_is_all_a_new_family_needs():
    assert "has_digit" in family_names() and get_family("has_digit") is DigitTask
    with pytest.raises(UserError, match="family='ner' is not supported, .*has_digit"):
        get_family("ner")


@pytest.mark.slow  # Exports the run again (~10 s on 2 cores).
def test_a_new_family_s_run_round_trips_its_task_json_and_exports(digit_run, tmp_path):
    config, output_dir, results = digit_run
    # task.json names the family: the table finds it, and its typed info reads back.
    assert family_of_run(output_dir, fix="") is DigitTask
    info = read_task_info(output_dir, DigitTask(config))
    assert info == TaskInfo(task="has_digit", max_seq_length=16, do_lower_case=True)
    assert TaskInfo.from_json(info.to_json()) == info
    # `albert-tf export --checkpoint=RUN` of the finished run: the family's signatures again.
    export_dir = export_finished_run(
        output_dir, str(tmp_path / "exported"), runtime=Runtime.plain()
    )
    texts = [line.split("\t")[0] for line in open(config.data_file, encoding="utf-8")]
    served = tf.saved_model.load(export_dir).signatures["has_digit"]
    first = tf.saved_model.load(results["saved_model"]).signatures["has_digit"]
    np.testing.assert_allclose(
        served(text=tf.constant(texts))["probability"],
        first(text=tf.constant(texts))["probability"],
        atol=1e-4,
    )


def test_a_family_without_length_buckets_refuses_bucket_width(tmp_path, monkeypatch):
    monkeypatch.setattr(DigitTask, "bucketing", False)
    config = DigitConfig(data_file="digits.tsv", bucket_width=8, albert_config_file="x")
    with pytest.raises(UserError, match="--bucket_width does not apply to the has_digit"):
        run_finetuning(config, str(tmp_path / "out"), runtime=Runtime.for_machine())
    assert not os.listdir(tmp_path)  # Refused before the output directory's lock.
