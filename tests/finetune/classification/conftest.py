"""Tiny SST-2-shaped files and one tiny classification run with export."""

from __future__ import annotations

import pytest

from albert_tf.finetune.classification.classification_config import ClassificationConfig
from tests.conftest import SHARED_DATA
from tests.finetune.conftest import finished_run, write_lines

GLUE_DIR = SHARED_DATA / "glue"
SEQ_LENGTH = 24

POSITIVE = ["a gorgeous , witty film", "the best movie of the year", "warm and funny"]
NEGATIVE = ["a dull , lifeless mess", "boring and far too long", "the worst script ever"]


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
def tiny_run_config(sentiment_dir, tiny_run_settings) -> ClassificationConfig:
    """Train, evaluate and predict the SST-2-shaped task with the tiny model."""
    settings = tiny_run_settings(SEQ_LENGTH, 6, learning_rate=2e-3, num_train_epochs=2)
    return ClassificationConfig(task="sst-2", data_dir=sentiment_dir, eval_batch_size=4, **settings)


@pytest.fixture(scope="session")
def finetuned_run(tmp_path_factory, tiny_run_config):
    """One tiny SST-2-shaped fine-tuning run with export and a profiler trace of steps 2-3:
    (output_dir, results)."""
    config = tiny_run_config.replace(export_saved_model=True, profile_steps="2,3")
    return finished_run(tmp_path_factory, config, "finetuned")
