"""Files the package's docstring examples read (`pytest --doctest-modules albert_tf`).

The examples name `/tmp/spm.model` and `/tmp/pretrain/`, as a user's shell session would.
On a clean machine nothing has written them yet, so they are made once per session, from the
embedded sample corpus, when doctests are collected and the files are missing.
"""

from __future__ import annotations

import os

import pytest
from _pytest.doctest import DoctestItem

REPO = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(REPO, "data", "sample.txt")

# The commands define absl flags when run (one command per process) and hold no examples.
collect_ignore = ["albert_tf/commands"]


@pytest.fixture(autouse=True, scope="session")
def doctest_files(request):
    if not any(isinstance(item, DoctestItem) for item in request.session.items):
        return
    from albert_tf.data.builder import BuilderOptions, build_pretraining_data
    from albert_tf.tokenization import train_sentencepiece

    if not os.path.exists("/tmp/spm.model"):
        train_sentencepiece([SAMPLE], "/tmp/spm", vocab_size=1000)
    if not os.path.exists("/tmp/pretrain"):
        options = BuilderOptions(
            input_file=SAMPLE,
            output_dir="/tmp/pretrain",
            spm_model_file="/tmp/spm.model",
            max_seq_length=128,
        )
        build_pretraining_data(options)
