"""`albert-tf classify` fine-tunes a generic TSV regression from an encoder bundle (which
carries its tokenizer): the command line, the TSV reader's columns and the regression problem
in one run (the SST-2 reader and classification run in the `finetuned_run` fixture)."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from albert_tf.export.encoder_bundle import save_encoder_bundle
from albert_tf.models.encoder import AlbertEncoder
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT
from tests.finetune.classification.conftest import NEGATIVE, POSITIVE, SEQ_LENGTH
from tests.finetune.conftest import write_lines

pytestmark = pytest.mark.slow  # Fine-tunes in a subprocess.


@pytest.mark.slow  # Over 5 s: a subprocess starting TensorFlow.
def test_script_trains_a_tsv_regression_from_a_bundle(tmp_path, tiny_config, tiny_model_file):
    bundle = save_encoder_bundle(
        str(tmp_path / "bundle"), AlbertEncoder(tiny_config), tiny_model_file
    )
    scores = [4.5, 5.0, 4.0, 0.5, 1.0, 0.0]
    rows = [f"{text}\t{score}" for text, score in zip(POSITIVE + NEGATIVE, scores, strict=True)]
    write_lines(tmp_path / "data" / "train.tsv", rows * 2)
    write_lines(tmp_path / "data" / "dev.tsv", rows)
    output_dir = tmp_path / "out"
    result = commands.run(
        command_line(
            "classify",
            "--task=tsv",
            f"--data_dir={tmp_path / 'data'}",
            "--text_a_column=0",
            "--label_column=1",
            "--has_header=false",
            "--problem=regression",
            f"--encoder={bundle}",
            f"--max_seq_length={SEQ_LENGTH}",
            "--train_batch_size=4",
            "--num_train_epochs=1",
            "--learning_rate=1e-3",
            "--do_train",
            "--do_eval",
            f"--output_dir={output_dir}",
        ),
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results = json.loads(result.stdout[result.stdout.index("{") :])
    assert results["train_steps"] == 3 and results["dev/examples"] == 6
    assert -1.0 <= results["dev/pearson"] <= 1.0 and -1.0 <= results["dev/spearman"] <= 1.0
    task = json.loads((output_dir / "task.json").read_text())
    assert task["problem"] == "regression" and task["labels"] is None
    # The bundle's tokenizer was used and kept with the fine-tuned model.
    assert (output_dir / "spm.model").read_bytes() == pathlib.Path(tiny_model_file).read_bytes()
