"""Tiny tagging files (IOB2) and one tiny fine-tuning run with export.

The model is `tiny_config_file` / `tiny_model_file` (tests/finetune/conftest.py,
tests/conftest.py): 2 layers, hidden 32, 300 pieces.
"""

from __future__ import annotations

import pytest

from albert_tf.finetune.tagging.tagging_config import TaggingConfig
from tests.finetune.conftest import finished_run, write_lines

SEQ_LENGTH = 16

# Learnable: names are people, cities are locations.
SENTENCES = [
    (["john", "lives", "in", "paris"], ["B-PER", "O", "O", "B-LOC"]),
    (
        ["mary", "smith", "went", "to", "new", "york"],
        ["B-PER", "I-PER", "O", "O", "B-LOC", "I-LOC"],
    ),
    (["the", "film", "was", "good"], ["O", "O", "O", "O"]),
    (["paris", "is", "big"], ["B-LOC", "O", "O"]),
]


def conll_lines(sentences, separator="\t") -> list[str]:
    lines = []
    for words, tags in sentences:
        lines += [f"{word}{separator}{tag}" for word, tag in zip(words, tags, strict=True)]
        lines.append("")
    return lines


@pytest.fixture(scope="session")
def tagging_dir(tmp_path_factory) -> str:
    directory = tmp_path_factory.mktemp("tagging")
    write_lines(directory / "train.txt", conll_lines(SENTENCES * 6))
    # A dev sentence longer than one window (SEQ_LENGTH - 2 pieces): windows are merged back.
    long_words = ["john", "lives", "in", "paris", "and", "mary", "smith", "went", "to"] * 2
    long_tags = ["B-PER", "O", "O", "B-LOC", "O", "B-PER", "I-PER", "O", "O"] * 2
    write_lines(directory / "dev.txt", conll_lines(SENTENCES + [(long_words, long_tags)]))
    write_lines(directory / "test.txt", [word for words, _ in SENTENCES for word in words + [""]])
    return str(directory)


@pytest.fixture(scope="session")
def tagging_config(tagging_dir, tiny_run_settings) -> TaggingConfig:
    settings = tiny_run_settings(SEQ_LENGTH, 8, learning_rate=3e-3, num_train_epochs=8)
    return TaggingConfig(data_dir=tagging_dir, eval_batch_size=4, **settings)


@pytest.fixture(scope="session")
def tagging_run(tmp_path_factory, tagging_config):
    """One tiny fine-tuning run with export: (output_dir, results)."""
    config = tagging_config.replace(export_saved_model=True)
    return finished_run(tmp_path_factory, config, "tagged")
