"""Fixtures shared by every test folder."""

from __future__ import annotations

import gc
import os
import pathlib

import pytest

# `--precision=auto` follows the machine (bf16 on AMX CPUs); tests (and the commands they start)
# get float32 everywhere so their numbers and tolerances do not depend on the CPU CI runs on.
# The speed-only forms are left to the machine (`Runtime.for_machine()`), as users get them.
os.environ.setdefault("ALBERT_TF_PRECISION", "float32")

from albert_tf.tokenization.train import train_sentencepiece
from tests.seeding import pytest_runtest_setup  # noqa: F401 (hook)
from tests.xdist_groups import (  # noqa: F401 (hooks)
    pytest_collection_modifyitems,
    pytest_configure,
)


def pytest_collection_finish(session):
    """Takes what the imports made (TensorFlow's, Keras's, every test module's: millions of
    objects that live as long as the process) out of the garbage collector's full passes, which
    otherwise walk them all and, in a worker that holds trained models, pause it for seconds
    each time."""
    gc.collect()
    gc.freeze()


REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
SAMPLE_TEXT = REPO_ROOT / "data" / "sample.txt"
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
SMALL_VOCAB_SIZE = 1000
# The fine-tuning and export tests assert on this size ("has 300 pieces"); it also keeps the
# embedding tables of their tiny models small.
TINY_VOCAB_SIZE = 300
# A tiny ALBERT over the `tiny_model_file` vocabulary (export and fine-tuning tests).
TINY_ALBERT = dict(
    vocab_size=TINY_VOCAB_SIZE,
    embedding_size=16,
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=64,
    max_position_embeddings=64,
)


@pytest.fixture(scope="session")
def sample_text_path() -> pathlib.Path:
    """The embedded sample corpus (one sentence per line, blank line between documents)."""
    return SAMPLE_TEXT


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory, sample_text_path) -> str:
    """The first 6 documents of data/sample.txt (fast end-to-end builds)."""
    documents = sample_text_path.read_text(encoding="utf-8").split("\n\n")[:6]
    path = tmp_path_factory.mktemp("corpus") / "small.txt"
    path.write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="session")
def small_model_file(tmp_path_factory) -> str:
    """Path of a 1000-piece lowercased SentencePiece model trained on data/sample.txt (~2 s)."""
    prefix = tmp_path_factory.mktemp("spm") / "sample"
    return train_sentencepiece([str(SAMPLE_TEXT)], str(prefix), vocab_size=SMALL_VOCAB_SIZE)


@pytest.fixture(scope="session")
def tiny_model_file(tmp_path_factory) -> str:
    """Path of a 300-piece lowercased SentencePiece model trained on data/sample.txt (~1 s)."""
    prefix = tmp_path_factory.mktemp("spm_tiny") / "sample"
    return train_sentencepiece([str(SAMPLE_TEXT)], str(prefix), vocab_size=TINY_VOCAB_SIZE)


CHINESE_DATA = SHARED_DATA / "chinese"
CHINESE_VOCAB_SIZE = 2000


def people_daily_sentences(path: pathlib.Path, count: int) -> list[str]:
    """The first `count` sentences of a character-per-line People's Daily file, joined."""
    sentences, current = [], []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.split():
                current.append(line.split()[0])
            elif current:
                sentences.append("".join(current))
                current = []
            if len(sentences) == count:
                break
    return sentences


@pytest.fixture(scope="session")
def chinese_corpus(tmp_path_factory) -> str:
    """A small Chinese corpus in the builder's format (~14k characters): 200 People's Daily
    sentences (documents of 10) and 80 ChnSentiCorp reviews split after 。！？."""
    sentences = people_daily_sentences(CHINESE_DATA / "peopledaily_ner" / "train.txt", 200)
    documents = ["\n".join(sentences[i : i + 10]) for i in range(0, len(sentences), 10)]
    lines = (CHINESE_DATA / "chnsenticorp" / "train.tsv").read_text(encoding="utf-8")
    for line in lines.splitlines()[1:81]:
        review = line.split("\t", 1)[1].replace("。", "。\n").replace("！", "！\n")
        documents.append("\n".join(part.strip() for part in review.split("\n") if part.strip()))
    path = tmp_path_factory.mktemp("chinese") / "corpus.txt"
    path.write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="session")
def chinese_model_file(chinese_corpus) -> str:
    """A 2000-piece SentencePiece model of `chinese_corpus`, with the coverage Chinese needs."""
    prefix = pathlib.Path(chinese_corpus).parent / "spm_zh"
    return train_sentencepiece(
        [chinese_corpus], str(prefix), vocab_size=CHINESE_VOCAB_SIZE, character_coverage=0.9995
    )
