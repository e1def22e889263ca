"""`albert-tf classify` fine-tunes from an encoder bundle (which carries its tokenizer)."""

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
from tests.finetune.classification.conftest import SEQ_LENGTH

pytestmark = pytest.mark.slow  # Fine-tunes in a subprocess.


@pytest.mark.slow  # Over 5 s: a subprocess starting TensorFlow.
def test_script_trains_and_evaluates_from_a_bundle(
    tmp_path, sentiment_dir, tiny_config, tiny_model_file
):
    bundle = save_encoder_bundle(
        str(tmp_path / "bundle"), AlbertEncoder(tiny_config), tiny_model_file
    )
    output_dir = tmp_path / "out"
    result = commands.run(
        command_line(
            "classify",
            "--task=sst-2",
            f"--data_dir={sentiment_dir}",
            f"--encoder={bundle}",
            f"--max_seq_length={SEQ_LENGTH}",
            "--train_batch_size=12",
            "--num_train_epochs=1",
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
    # The bundle's tokenizer was used and kept with the fine-tuned model.
    assert (output_dir / "spm.model").read_bytes() == pathlib.Path(tiny_model_file).read_bytes()
