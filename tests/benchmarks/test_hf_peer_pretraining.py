"""benchmarks/hf_peer_pretraining.py trains Hugging Face's ALBERT within its budget and writes a
directory that albert_tf fine-tunes from, computing what the trained torch model computes;
`--evaluate` scores a directory on the held-out blocks exactly as training did."""

from __future__ import annotations

import json

import pytest

from albert_tf.config import AlbertConfig
from albert_tf.finetune.pretrained_encoder import load_pretrained_encoder
from tests.conftest import SAMPLE_TEXT, TINY_ALBERT
from tests.convert.test_hf_without_pooler import assert_sequence_output_is_hf

transformers = pytest.importorskip("transformers")
peer = pytest.importorskip("benchmarks.hf_peer_pretraining")


def test_the_peer_trains_for_its_budget_and_albert_tf_reads_the_result(
    tmp_path, tiny_model_file, capsys
):
    config_file = tmp_path / "albert_config.json"
    AlbertConfig(**TINY_ALBERT).to_json_file(config_file)
    output = tmp_path / "peer"
    held_out = [
        f"--eval_file={SAMPLE_TEXT}",
        f"--spm_model_file={tiny_model_file}",
        "--batch_size=4",
        "--max_seq_length=16",
        "--eval_blocks=8",
    ]
    peer.main(
        [
            *held_out,
            f"--train_file={SAMPLE_TEXT}",
            f"--albert_config_file={config_file}",
            "--budget_seconds=2",
            "--calibration_steps=3",
            "--warmup_steps=4",
            f"--output_dir={output}",
        ]
    )
    run = json.loads((output / "peer_pretraining.json").read_text())
    # Within its budget: a loaded machine may stop it before calibration, never long after.
    assert run["steps"] >= 1 and run["seconds"] < 2 + 10
    assert run["held_out_blocks"] == 8
    accuracy = run["held_out_masked_lm_accuracy"]
    assert 0.0 <= accuracy <= 1.0
    capsys.readouterr()
    peer.main([*held_out, f"--evaluate={output}"])
    printed = capsys.readouterr().out
    assert f"{output}: held-out masked-LM accuracy {accuracy:.3f} (8 blocks)" in printed
    trained = transformers.AlbertForMaskedLM.from_pretrained(output)
    encoder = load_pretrained_encoder(str(output)).encoder
    assert_sequence_output_is_hf(encoder, trained, seed=1)
    # A second phase (`--init_model`) starts from these weights, without a config file.
    second = peer.parse_args(
        [*held_out, f"--init_model={output}", f"--train_file={SAMPLE_TEXT}"]
        + [f"--output_dir={tmp_path / 'phase2'}", "--budget_seconds=1"]
    )
    continued = peer.peer_model(second).state_dict()
    for name, value in trained.state_dict().items():
        assert continued[name].equal(value), name


def test_training_needs_a_config_or_a_model_to_continue(capsys):
    with pytest.raises(SystemExit):
        peer.parse_args(["--eval_file=x", "--spm_model_file=y", "--train_file=z"])
    assert "--albert_config_file (or --init_model)" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # A continued model keeps its shape: no second source.
        peer.parse_args(
            ["--eval_file=x", "--spm_model_file=y", "--init_model=m", "--albert_config_file=c"]
        )
    assert "drop --albert_config_file" in capsys.readouterr().err
