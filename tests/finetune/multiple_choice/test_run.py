"""`run_multiple_choice` on tiny RACE folders: train, evaluate, predict, export, reload, errors."""

from __future__ import annotations

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.finetune.multiple_choice.choice_features import ChoiceFeatures
from albert_tf.finetune.multiple_choice.datasets import padded_options
from albert_tf.finetune.multiple_choice.examples import read_race
from albert_tf.finetune.multiple_choice.multiple_choice_task import run_multiple_choice
from albert_tf.runtime import Runtime
from tests.finetune.multiple_choice.conftest import ARTICLES, race_article
from tests.fresh_process import run_without_albert_tf


@pytest.mark.slow  # Needs the trained multiple-choice run.
def test_train_eval_predict_then_reload(choice_run, choice_config, race_dirs):
    output_dir, results = choice_run
    assert results["train_examples"] == 16 and results["train_steps"] == 8
    assert results["dev/examples"] == 4
    for name in ("accuracy", "middle/accuracy", "high/accuracy", "baseline_accuracy"):
        assert 0.0 <= results[f"dev/{name}"] <= 1.0, name
    # Answers A, B, C, A in train: the baseline always says A, right on 2 of 4 dev questions.
    assert results["dev/baseline_accuracy"] == 0.5
    for name in ("model.keras", "task.json", "spm.model", "eval_results.json"):
        assert os.path.isfile(os.path.join(output_dir, name)), name
    lines = [json.loads(line) for line in open(results["predictions"])]
    assert [line["id"] for line in lines] == [e.id for e in read_race(race_dirs[1])]
    assert [len(line["probabilities"]) for line in lines] == [4, 2, 4, 3]  # high/ sorts first.
    for line in lines:
        assert abs(sum(line["probabilities"]) - 1) < 1e-4
        # The answer is the most probable option (probabilities are written rounded to 6
        # decimals, so a near-tie may round to equal values).
        chosen = line["probabilities"]["ABCD".index(line["answer"])]
        assert chosen >= max(line["probabilities"]) - 1e-6
    reloaded = run_multiple_choice(
        choice_config.replace(do_train=False, do_predict=False),
        output_dir,
        runtime=Runtime.for_machine(),
    )
    assert reloaded["dev/accuracy"] == results["dev/accuracy"]


@pytest.mark.slow  # Needs the trained run; serves it.
def test_saved_model_chooses_as_keras_does(choice_run, race_dirs):
    output_dir, results = choice_run
    task = json.load(open(os.path.join(output_dir, "task.json")))
    model = keras.saving.load_model(os.path.join(output_dir, "model.keras"))
    features = ChoiceFeatures(
        os.path.join(output_dir, "spm.model"), task["max_seq_length"], task["max_qa_length"]
    )
    examples = read_race(race_dirs[1])
    context = tf.constant([e.context for e in examples] + ["an unseen article , with café ."])
    question = tf.constant([e.question for e in examples] + ["which _ ?"])
    options = tf.constant(padded_options(examples).tolist() + [["one", "", "three", "four"]])
    packed = features([context, question, options])
    keras_logits = model.predict(packed, verbose=0)

    served = tf.saved_model.load(results["saved_model"])
    assert set(served.signatures) == {"choose", "serving_default"}
    outputs = served.signatures["choose"](context=context, question=question, options=options)
    np.testing.assert_allclose(outputs["logits"].numpy(), keras_logits, atol=1e-5)
    probabilities = outputs["probabilities"].numpy()
    np.testing.assert_allclose(probabilities, tf.nn.softmax(keras_logits).numpy(), atol=1e-6)
    assert probabilities[1, 2:].max() == 0.0 and probabilities[-1, 1] == 0.0  # Padding.
    expected = keras_logits.argmax(axis=1)
    np.testing.assert_array_equal(outputs["answer_ids"].numpy(), expected)
    assert [a.decode() for a in outputs["answers"].numpy()] == ["ABCD"[i] for i in expected]
    from_ids = served.signatures["serving_default"](**packed)
    np.testing.assert_allclose(from_ids["logits"].numpy(), keras_logits, atol=1e-5)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["options"][0].append("e"), r"wrong number of options: 5 \(allowed: 2-4\)"),
        (lambda d: d["answers"].__setitem__(0, "E"), "answer 'E' is out of range"),
        (lambda d: d.pop("article"), "missing field article"),
    ],
)
def test_bad_training_file_writes_nothing(tmp_path, choice_config, change, message):
    train_dir = tmp_path / "train"
    train_dir.mkdir()
    article, question, options, answer = ARTICLES["middle"][0]
    data = race_article(article, [(question, list(options), answer)], "bad1")
    change(data)
    (train_dir / "bad1.json").write_text(json.dumps(data))
    output_dir = tmp_path / "out"
    with pytest.raises(ValueError, match=message) as error:
        run_multiple_choice(
            choice_config.replace(train_file=str(train_dir)),
            str(output_dir),
            runtime=Runtime.for_machine(),
        )
    assert str(train_dir / "bad1.json") in str(error.value)
    assert not output_dir.exists()


def test_bad_dev_file_is_found_before_training(tmp_path, choice_config):
    dev = tmp_path / "dev.json"
    dev.write_text('{"article": "x", "questions": ["q"],\n "options": [["a", "b"]], "answers": [}')
    output_dir = tmp_path / "out"
    with pytest.raises(ValueError, match=r"invalid JSON .*dev.json:2"):
        run_multiple_choice(
            choice_config.replace(dev_file=str(dev)), str(output_dir), runtime=Runtime.for_machine()
        )
    assert not output_dir.exists()


def test_holdout_splits_by_article(race_dirs, choice_config):
    from albert_tf.finetune.multiple_choice.multiple_choice_task import MultipleChoiceTask

    config = choice_config.replace(dev_file="", holdout_fraction=0.3, do_predict=False)
    data = MultipleChoiceTask(config).read_inputs(None)
    train_groups = {e.group for e in data.train}
    dev_groups = {e.group for e in data.dev}
    assert dev_groups and train_groups and not train_groups & dev_groups
    assert len(data.train) + len(data.dev) == 16
    again = MultipleChoiceTask(config).read_inputs(None)
    assert [e.id for e in again.dev] == [e.id for e in data.dev]


def test_config_errors(choice_config):
    with pytest.raises(ValueError, match=r"max_qa_length must be in \[1, 29\] .*got 30"):
        choice_config.replace(max_qa_length=30)
    with pytest.raises(ValueError, match="pass one of --dev_file and --holdout_fraction"):
        choice_config.replace(holdout_fraction=0.2)
    with pytest.raises(ValueError, match="task='squad' is not supported"):
        choice_config.replace(task="squad")


_FRESH_PROCESS = """
import json, sys
import tensorflow as tf
import tensorflow_text  # noqa: F401
chooser = tf.saved_model.load(sys.argv[1])
args = json.loads(sys.argv[2])
out = chooser.signatures["choose"](**{k: tf.constant(v) for k, v in args.items()})
assert not [m for m in sys.modules if m.startswith("albert_tf")]
print("RESULT" + json.dumps(out["probabilities"].numpy().tolist()))
"""


@pytest.mark.slow  # A subprocess serves the run.
def test_choose_loads_with_only_tensorflow_and_tensorflow_text(choice_run, tmp_path):
    _, results = choice_run
    args = {
        "context": ["tom has a small cat .", "anna drinks hot tea ."],
        "question": ["tom has a _ .", "what does anna drink ?"],
        "options": [["cat", "dog", "bird"], ["tea", "milk", ""]],
    }
    expected = tf.saved_model.load(results["saved_model"]).signatures["choose"](
        **{name: tf.constant(value) for name, value in args.items()}
    )["probabilities"]
    served = run_without_albert_tf(
        _FRESH_PROCESS, results["saved_model"], json.dumps(args), cwd=tmp_path
    )
    np.testing.assert_allclose(served, expected.numpy(), atol=1e-6)
