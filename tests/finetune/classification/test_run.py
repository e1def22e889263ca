"""`run_classifier` end to end on tiny files: train, evaluate, predict, reload, errors."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from albert_tf.finetune.classification.classification_task import run_classifier
from albert_tf.finetune.fitting import plan_steps
from albert_tf.runtime import Runtime
from tests.finetune.classification.conftest import NEGATIVE, POSITIVE
from tests.tensorboard_events import profiler_traces, read_hparams, read_scalars


@pytest.mark.slow  # Needs the trained classification run.
def test_train_eval_predict_then_reload(finetuned_run, tiny_run_config):
    output_dir, results = finetuned_run
    assert results["train_examples"] == 36 and results["train_steps"] == 12
    assert set(results) >= {"dev/accuracy", "dev/examples", "predictions", "saved_model"}
    for name in (
        "model.keras",
        "task.json",
        "spm.model",
        "finetune_config.json",
        "runtime.json",
        "eval_results.json",
        "checkpoints/epoch-02.weights.h5",
    ):
        assert os.path.isfile(os.path.join(output_dir, name)), name
    assert os.listdir(os.path.join(output_dir, "logs", "train"))
    with open(os.path.join(output_dir, "eval_results.json")) as handle:
        assert json.load(handle)["dev/accuracy"] == results["dev/accuracy"]

    lines = open(results["predictions"][0]).read().splitlines()
    assert results["predictions"][0].endswith("predictions/SST-2.tsv")
    assert lines[0] == "index\tprediction"
    ids, labels = zip(*(line.split("\t") for line in lines[1:]), strict=True)
    assert list(ids) == [str(i) for i in range(len(POSITIVE + NEGATIVE))]
    assert set(labels) <= {"0", "1"}

    # Evaluating the saved run again (no training) gives the same metrics.
    reloaded = run_classifier(
        tiny_run_config.replace(do_train=False, do_predict=False),
        output_dir,
        runtime=Runtime.for_machine(),
    )
    assert reloaded["dev/accuracy"] == results["dev/accuracy"]


def test_vocabulary_mismatch_is_a_clear_error(tmp_path, tiny_run_config, tiny_config):
    bigger = tmp_path / "albert_config.json"
    tiny_config.replace(vocab_size=tiny_config.vocab_size + 1).to_json_file(bigger)
    with pytest.raises(ValueError, match=r"has 300 pieces but the encoder .* has vocab_size 301"):
        run_classifier(
            tiny_run_config.replace(albert_config_file=str(bigger)),
            str(tmp_path),
            runtime=Runtime.for_machine(),
        )


def test_eval_without_a_finetuned_model_is_a_clear_error(tmp_path, tiny_run_config):
    with pytest.raises(ValueError, match="no task.json, .*run with --do_train"):
        run_classifier(
            tiny_run_config.replace(do_train=False), str(tmp_path), runtime=Runtime.for_machine()
        )


def test_labels_that_do_not_match_the_task(tmp_path, tiny_run_config):
    with pytest.raises(ValueError, match="do not match task sst-2's labels"):
        run_classifier(
            tiny_run_config.replace(labels=("neg", "pos")),
            str(tmp_path),
            runtime=Runtime.for_machine(),
        )


@pytest.mark.slow  # Needs the trained classification run.
def test_run_writes_its_hparams_and_metrics_for_tensorboard(finetuned_run, tiny_run_config):
    output_dir, results = finetuned_run
    written = read_hparams(os.path.join(output_dir, "logs"))
    hparams = written["hparams"]
    assert hparams["task"] == "sst-2" and hparams["train_batch_size"] == 6
    assert hparams["learning_rate"] == pytest.approx(tiny_run_config.learning_rate)
    assert hparams["profile_steps"] == "2,3" and sorted(written["columns"]) == sorted(hparams)
    assert {("train", "epoch_loss"), ("eval", "dev/accuracy")} <= set(written["metrics"])
    for group, tag in written["metrics"]:  # Each one a scalar the run wrote there.
        assert tag in read_scalars(os.path.join(output_dir, "logs", group)), (group, tag)
    assert read_scalars(os.path.join(output_dir, "logs", "eval"))["dev/accuracy"] == (
        pytest.approx(results["dev/accuracy"])
    )


@pytest.mark.slow  # Needs the trained classification run.
def test_profile_steps_capture_a_trace_of_those_steps(finetuned_run):
    output_dir, _ = finetuned_run
    assert profiler_traces(os.path.join(output_dir, "logs", "profile", "train"))


@pytest.mark.slow  # Needs the trained classification run.
def test_predictions_are_consistent_with_metrics(finetuned_run):
    output_dir, results = finetuned_run
    # Dev = the 6 distinct training sentences; accuracy is a multiple of 1/6.
    assert np.isclose(results["dev/accuracy"] * 6, round(results["dev/accuracy"] * 6))


def test_plan_steps_matches_the_original_step_count():
    assert plan_steps(2490, 32, 3.0) == (77, 3)  # Original: int(2490 * 3 / 32) = 233 ~ 231.
    assert plan_steps(67349, 32, 1.0) == (2104, 1)
    assert plan_steps(100, 32, 0.5) == (1, 1)  # Less than an epoch: one short epoch.
    assert plan_steps(10, 32, 3.0) == (1, 1)  # Fewer examples than a batch: one step.


@pytest.mark.slow  # Trains and exports a second model.
def test_the_other_runtime_trains_and_serves_like_this_machines(
    finetuned_run, tiny_run_config, tmp_path
):
    """The fixture's run used this machine's forms (`Runtime.for_machine()`, as the command);
    the same run with every form the other way (fused kernels and the compiled one-text
    forward on where they are off here, off where they are on) ends at the same model, within
    float32 rounding, and records what it ran."""
    import tensorflow as tf

    from albert_tf.finetune.driver import run_finetuning

    machine = Runtime.for_machine()
    other = Runtime(
        fused_kernels=not machine.fused_kernels, compiled_serving=not machine.compiled_serving
    )
    output_dir, results = finetuned_run
    config = tiny_run_config.replace(export_saved_model=True, do_predict=False)
    other_results = run_finetuning(config, str(tmp_path / "other"), other)
    assert other_results["dev/accuracy"] == results["dev/accuracy"]
    with open(tmp_path / "other" / "runtime.json") as handle:
        forms = json.load(handle)["forms"]
    assert {name: form["on"] for name, form in forms.items()} == {
        "fused_kernels": other.fused_kernels,
        "compiled_serving": other.compiled_serving,
    }
    texts = tf.constant(POSITIVE[:1] + NEGATIVE)  # One text, then a batch: both routes.
    served = [
        tf.saved_model.load(path).signatures["classify_text"]
        for path in (results["saved_model"], other_results["saved_model"])
    ]
    for batch in (texts[:1], texts):
        mine, theirs = (np.asarray(call(text_a=batch)["logits"]) for call in served)
        np.testing.assert_allclose(theirs, mine, atol=2e-4)
