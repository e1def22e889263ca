"""A tiny SQuAD v2 run end to end: files written, official formats, SavedModel == Python."""

from __future__ import annotations

import json
import os
import pathlib

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.errors import UserError
from albert_tf.finetune.span_qa.examples import read_squad
from albert_tf.finetune.span_qa.span_qa_task import run_span_qa
from albert_tf.runtime import Runtime
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT
from tests.finetune.span_qa.conftest import squad_json, write_json
from tests.fresh_process import run_without_albert_tf


@pytest.mark.slow  # Needs the trained span QA run.
def test_run_writes_official_files_and_scores(span_qa_run, squad_slices):
    output_dir, results = span_qa_run
    assert results["train_questions"] == 40 and results["train_windows"] > 40
    assert np.isfinite(results["train/loss"])
    for stem in ("dev", "xquad"):
        assert results[f"{stem}/total"] == {"dev": 24, "xquad": 12}[stem]
        assert 0.0 <= results[f"{stem}/f1"] <= 100.0
    directory = os.path.join(output_dir, "predictions", "dev")
    predictions = json.load(open(os.path.join(directory, "predictions.json")))
    nbest = json.load(open(os.path.join(directory, "nbest_predictions.json")))
    null_odds = json.load(open(os.path.join(directory, "null_odds.json")))
    ids = {e.qas_id for e in read_squad(squad_slices["dev"]).examples}
    assert set(predictions) == set(nbest) == set(null_odds) == ids
    for entries in nbest.values():
        assert {"text", "probability", "start_logit", "end_logit"} <= set(entries[0])
        assert sum(e["probability"] for e in entries) == pytest.approx(1.0, abs=1e-6)
        assert "" in [e["text"] for e in entries]  # v2: the null is in the n-best.
    # v1.1 file in a v2 run: answered without no-answers, no null_odds file.
    xquad = json.load(open(os.path.join(output_dir, "predictions", "xquad", "predictions.json")))
    assert all(xquad.values())
    assert not os.path.exists(os.path.join(output_dir, "predictions", "xquad", "null_odds.json"))
    # The threshold chosen on dev is stored and reported.
    task = json.load(open(os.path.join(output_dir, "task.json")))
    assert task["null_score_diff_threshold"] == results["null_score_diff_threshold"]
    assert results["null_score_diff_threshold"] == results["dev/best_f1_thresh"]
    assert results["dev/f1"] == pytest.approx(results["dev/best_f1"])


@pytest.mark.slow  # A subprocess serves the run.
def test_saved_model_answers_equal_the_python_pipeline(span_qa_run, squad_slices):
    """The whole dev slice (24 questions, several windows each) through `answer`."""
    output_dir, results = span_qa_run
    code = (
        "import json, sys, tensorflow as tf, tensorflow_text\n"
        "qa = tf.saved_model.load(sys.argv[1])\n"
        "q, c = json.load(open(sys.argv[2]))\n"
        "out = qa.signatures['answer'](question=tf.constant(q), context=tf.constant(c))\n"
        "print('RESULT' + json.dumps({k: v.numpy().tolist() for k, v in out.items()"
        " if k != 'answer'} | {'answer': [a.decode() for a in out['answer'].numpy()]}))\n"
    )
    examples = read_squad(squad_slices["dev"]).examples
    inputs = write_json(
        pathlib.Path(output_dir) / "inputs.json",
        [[e.question for e in examples], [e.context for e in examples]],
    )
    # A process with only tensorflow + tensorflow_text imported (no albert_tf).
    served = run_without_albert_tf(code, results["saved_model"], inputs, cwd=output_dir)
    predictions = json.load(
        open(os.path.join(output_dir, "predictions", "dev", "predictions.json"))
    )
    assert served["answer"] == [predictions[e.qas_id] for e in examples]
    assert any(served["answer"]) or not any(predictions.values())
    for row, example in enumerate(examples):
        start, end = served["start"][row], served["end"][row]
        assert example.context[start:end] == served["answer"][row]


@pytest.mark.slow  # Serves the trained run.
def test_windows_in_the_graph_handle_long_and_empty_contexts(span_qa_run):
    output_dir, results = span_qa_run
    qa = tf.saved_model.load(results["saved_model"])
    long_context = " ".join(["the normans conquered england in 1066 ."] * 40)
    out = qa.signatures["answer"](
        question=tf.constant(["who conquered england?", "what?", "x"]),
        context=tf.constant([long_context, "   ", "tiny"]),
    )
    assert out["answer"].numpy()[1] == b""  # Whitespace-only context: no answer.
    start, end = out["start"].numpy(), out["end"].numpy()
    answer = out["answer"].numpy()[0].decode()
    assert long_context[start[0] : end[0]] == answer


def test_v2_data_without_the_flag_and_empty_dev_are_user_errors(
    tmp_path, tiny_span_qa_config, squad_slices
):
    config = tiny_span_qa_config.replace(version_2_with_negative=False, export_saved_model=False)
    with pytest.raises(UserError, match="--version_2_with_negative"):
        run_span_qa(config, str(tmp_path / "a"), runtime=Runtime.for_machine())
    empty = write_json(tmp_path / "empty.json", squad_json([]))
    config = tiny_span_qa_config.replace(predict_file=empty, do_train=False)
    with pytest.raises(UserError, match="no .*task.json|no questions"):
        run_span_qa(config, str(tmp_path / "b"), runtime=Runtime.for_machine())


@pytest.mark.slow  # Runs the command in a subprocess.
def test_script_reports_bad_input_in_one_line(tmp_path):
    bad = write_json(tmp_path / "bad.json", '{"version": "v2.0", "data": [}')
    result = commands.run(
        command_line(
            "span-qa",
            f"--train_file={bad}",
            "--do_train",
            f"--output_dir={tmp_path / 'out'}",
            "--albert_config_file=x",
        ),
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
    )
    assert result.returncode == 2
    assert "error: malformed JSON" in result.stderr and "bad.json:1:" in result.stderr
