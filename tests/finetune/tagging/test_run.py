"""A whole tiny tagging run: files written, scores, predictions in CoNLL format."""

from __future__ import annotations

import json
import os

import pytest

from albert_tf.finetune.tagging.conlleval import conlleval
from albert_tf.runtime import Runtime
from tests.finetune.tagging.conftest import SENTENCES

pytestmark = pytest.mark.slow  # Needs the trained tagging run, or trains one.


@pytest.mark.slow  # Over 5 s: builds on the tagging run.
def test_run_writes_scores_predictions_and_model(tagging_run):
    output_dir, results = tagging_run
    for name in ("model.keras", "task.json", "spm.model", "eval_results.json"):
        assert os.path.isfile(os.path.join(output_dir, name)), name
    task = json.load(open(os.path.join(output_dir, "task.json")))
    assert task["labels"][0] == "O" and set(task["labels"]) == {
        "O",
        "B-PER",
        "I-PER",
        "B-LOC",
        "I-LOC",
    }
    assert results["dev/sentences"] == len(SENTENCES) + 1
    assert results["dev/words"] == sum(len(w) for w, _ in SENTENCES) + 18
    assert results["dev/f1"] > 0.5, results  # The tiny model learns these names.
    assert "baseline/f1" in results
    # The baseline memorizes these names: it is perfect on the short sentences.
    assert results["baseline/accuracy"] == 1.0


@pytest.mark.slow  # Over 5 s: builds on the tagging run.
def test_dev_predictions_are_conll_and_rescore_to_the_reported_f1(tagging_run):
    output_dir, results = tagging_run
    blocks = open(os.path.join(output_dir, "predictions", "dev.conll")).read().split("\n\n")
    sentences = [[line.split(" ") for line in block.splitlines()] for block in blocks if block]
    assert len(sentences) == len(SENTENCES) + 1
    assert all(len(columns) == 3 for sentence in sentences for columns in sentence)
    assert [columns[0] for columns in sentences[0]] == SENTENCES[0][0]
    gold = [[columns[1] for columns in sentence] for sentence in sentences]
    predicted = [[columns[2] for columns in sentence] for sentence in sentences]
    assert conlleval(gold, predicted)["f1"] == results["dev/f1"]
    test_lines = open(results["predictions"][0]).read().split("\n\n")[0].splitlines()
    assert [line.split(" ")[0] for line in test_lines] == SENTENCES[0][0]
    assert all(len(line.split(" ")) == 2 for line in test_lines)  # Unlabeled: word predicted.


@pytest.mark.slow  # Over 5 s: builds on the tagging run.
def test_eval_only_run_from_output_dir(tagging_run, tagging_config):
    from albert_tf.finetune.tagging.tagging_task import run_tagging

    output_dir, results = tagging_run
    again = run_tagging(
        tagging_config.replace(do_train=False, do_predict=False),
        output_dir,
        runtime=Runtime.for_machine(),
    )
    assert again["dev/f1"] == results["dev/f1"]
    assert again["dev/accuracy"] == results["dev/accuracy"]
