"""Shared fixtures: SQuAD-shaped files (small slices of ../shared/data/squad) and a tiny run.

The tokenizer is `tiny_model_file` (300 pieces); the model is `TINY_ALBERT` (64 positions).
"""

from __future__ import annotations

import json
import pathlib

import pytest

from albert_tf.finetune.span_qa.span_qa_config import SpanQaConfig
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from tests.conftest import SHARED_DATA
from tests.finetune.conftest import finished_run

SQUAD_DIR = SHARED_DATA / "squad"
SQUAD_FILES = ("v1.1/xquad.en.json", "v2.0/train.json", "v2.0/dev.json")
SEQ_LENGTH = 64


def squad_json(paragraphs: list[dict], version: str = "v2.0") -> dict:
    return {"version": version, "data": [{"title": "t", "paragraphs": paragraphs}]}


def write_json(path: pathlib.Path, document) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = document if isinstance(document, str) else json.dumps(document)
    path.write_text(text, encoding="utf-8")
    return str(path)


def slice_squad(source: pathlib.Path, num_questions: int) -> dict:
    """The first `num_questions` questions of a SQuAD file, whole paragraphs' contexts."""
    document = json.loads(source.read_text(encoding="utf-8"))
    articles, count = [], 0
    for article in document["data"]:
        paragraphs = []
        for paragraph in article["paragraphs"]:
            if count >= num_questions:
                break
            qas = paragraph["qas"][: num_questions - count]
            count += len(qas)
            paragraphs.append({"context": paragraph["context"], "qas": qas})
        if paragraphs:
            articles.append({"title": article.get("title", ""), "paragraphs": paragraphs})
    return {"version": document["version"], "data": articles}


@pytest.fixture(scope="session")
def tiny_tokenizer(tiny_model_file) -> AlbertTokenizer:
    return AlbertTokenizer(tiny_model_file)


@pytest.fixture(scope="session")
def squad_slices(tmp_path_factory) -> dict[str, str]:
    """`train` (40 v2 questions), `dev` (24 v2 questions), `xquad` (12 v1.1 questions)."""
    directory = tmp_path_factory.mktemp("squad")
    return {
        "train": write_json(directory / "train.json", slice_squad(SQUAD_DIR / SQUAD_FILES[1], 40)),
        "dev": write_json(directory / "dev.json", slice_squad(SQUAD_DIR / SQUAD_FILES[2], 24)),
        "xquad": write_json(directory / "xquad.json", slice_squad(SQUAD_DIR / SQUAD_FILES[0], 12)),
    }


@pytest.fixture(scope="session")
def tiny_span_qa_config(squad_slices, tiny_run_settings) -> SpanQaConfig:
    files = {"train_file": squad_slices["train"], "version_2_with_negative": True}
    files["predict_file"] = f"{squad_slices['dev']},{squad_slices['xquad']}"
    windows = dict(doc_stride=24, max_query_length=16, eval_batch_size=64)
    settings = tiny_run_settings(SEQ_LENGTH, 16, 1e-3, 1, export_saved_model=True, **windows)
    return SpanQaConfig(**files, **settings)


@pytest.fixture(scope="session")
def span_qa_run(tmp_path_factory, tiny_span_qa_config):
    """One tiny SQuAD v2 run with predictions and export: (output_dir, results)."""
    return finished_run(tmp_path_factory, tiny_span_qa_config, "span_qa_run")
