"""Shared fixtures: a tiny ALBERT config, tiny GLUE-shaped files, one tiny fine-tuning run.

The SentencePiece model is `tiny_model_file` of tests/conftest.py (300 pieces).
"""

from __future__ import annotations

import pathlib

import pytest

from albert_tf.config import AlbertConfig
from albert_tf.finetune.classification.classification_config import ClassificationConfig
from tests.conftest import SHARED_DATA, TINY_ALBERT

GLUE_DIR = SHARED_DATA / "glue"
SEQ_LENGTH = 24

POSITIVE = ["a gorgeous , witty film", "the best movie of the year", "warm and funny"]
NEGATIVE = ["a dull , lifeless mess", "boring and far too long", "the worst script ever"]


@pytest.fixture(scope="session")
def tiny_config() -> AlbertConfig:
    return AlbertConfig(**TINY_ALBERT)


@pytest.fixture(scope="session")
def tiny_config_file(tmp_path_factory, tiny_config) -> str:
    path = tmp_path_factory.mktemp("config") / "albert_config.json"
    tiny_config.to_json_file(path)
    return str(path)


def write_lines(path: pathlib.Path, lines: list[str]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="session")
def sentiment_dir(tmp_path_factory) -> str:
    """An SST-2-shaped task (header `sentence<TAB>label`) that a tiny model can learn."""
    directory = tmp_path_factory.mktemp("sst2")
    rows = [f"{text} \t1" for text in POSITIVE] + [f"{text} \t0" for text in NEGATIVE]
    write_lines(directory / "train.tsv", ["sentence\tlabel"] + rows * 6)
    write_lines(directory / "dev.tsv", ["sentence\tlabel"] + rows)
    test_rows = [f"{i}\t{text}" for i, text in enumerate(POSITIVE + NEGATIVE)]
    write_lines(directory / "test.tsv", ["index\tsentence"] + test_rows)
    return str(directory)


@pytest.fixture(scope="session")
def tiny_run_config(sentiment_dir, tiny_config_file, tiny_model_file) -> ClassificationConfig:
    """Train, evaluate and predict the SST-2-shaped task with the tiny model."""
    return ClassificationConfig(
        task="sst-2",
        data_dir=sentiment_dir,
        albert_config_file=tiny_config_file,
        spm_model_file=tiny_model_file,
        max_seq_length=SEQ_LENGTH,
        train_batch_size=6,
        eval_batch_size=4,
        learning_rate=2e-3,
        num_train_epochs=2,
        do_train=True,
        do_eval=True,
        do_predict=True,
    )


@pytest.fixture(scope="session")
def finetuned_run(tmp_path_factory, tiny_run_config):
    """One tiny SST-2-shaped fine-tuning run with export: (output_dir, results)."""
    from albert_tf.finetune.classification.task import run_classifier

    output_dir = str(tmp_path_factory.mktemp("finetuned"))
    return output_dir, run_classifier(tiny_run_config.replace(export_saved_model=True), output_dir)
