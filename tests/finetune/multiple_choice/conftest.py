"""Tiny RACE-layout and generic multiple-choice files, and one tiny fine-tuning run."""

from __future__ import annotations

import json
import pathlib

import pytest

from albert_tf.finetune.multiple_choice.multiple_choice_config import MultipleChoiceConfig
from tests.finetune.conftest import finished_run

SEQ_LENGTH = 32
QA_LENGTH = 8

# (article, question, options, answer): the answer repeats a word of the article.
ARTICLES = {
    "middle": [
        ("tom has a small cat .", "tom has a _ .", ["cat", "dog", "bird", "fish"], "A"),
        ("the sky was very blue .", "what color was the sky ?", ["red", "blue", "green"], "B"),
    ],
    "high": [
        ("anna drinks hot tea .", "anna drinks _ .", ["milk", "juice", "tea", "water"], "C"),
        ("the old man reads books .", "what does he read ?", ["books", "news"], "A"),
    ],
}


def race_article(article: str, questions: list[tuple], article_id: str) -> dict:
    return {
        "id": article_id,
        "article": article,
        "questions": [q for q, _, _ in questions],
        "options": [o for _, o, _ in questions],
        "answers": [a for _, _, a in questions],
        "evidences": [],  # RACE+ has it; readers ignore it.
    }


def write_race(directory: pathlib.Path, copies: int = 1) -> str:
    for level, items in ARTICLES.items():
        (directory / level).mkdir(parents=True, exist_ok=True)
        for copy in range(copies):
            for index, (article, question, options, answer) in enumerate(items):
                article_id = f"{level}{index}-{copy}"
                data = race_article(article, [(question, options, answer)], article_id)
                (directory / level / f"{article_id}.json").write_text(json.dumps(data))
    return str(directory)


@pytest.fixture(scope="session")
def race_dirs(tmp_path_factory) -> tuple[str, str]:
    root = tmp_path_factory.mktemp("race")
    return write_race(root / "train", copies=4), write_race(root / "dev")


@pytest.fixture(scope="session")
def choice_config(race_dirs, tiny_run_settings) -> MultipleChoiceConfig:
    train_dir, dev_dir = race_dirs
    settings = tiny_run_settings(SEQ_LENGTH, 4, 2e-3, 2, max_qa_length=QA_LENGTH, eval_batch_size=3)
    return MultipleChoiceConfig(
        train_file=train_dir, dev_file=dev_dir, test_file=dev_dir, **settings
    )


@pytest.fixture(scope="session")
def choice_run(tmp_path_factory, choice_config):
    """One tiny RACE run with export: (output_dir, results)."""
    return finished_run(tmp_path_factory, choice_config.replace(export_saved_model=True), "choice")
