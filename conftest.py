"""Names the package's docstring examples read (`pytest --doctest-modules albert_tf`).

An example that needs a file reads a name from pytest's `doctest_namespace` instead of a fixed
path such as `/tmp/spm.model`, so that it writes only into temporary directories of its own
run: parallel runs and other users' files never clash.

* `tmp_dir`: an empty directory, the example's own;
* `spm_model`: a 1000-piece SentencePiece model trained on data/sample.txt;
* `pretrain_dir`: pretraining records built from data/sample.txt with that model.

The shared files are built once per session, when the first example that reads them runs.
"""

from __future__ import annotations

import os

import pytest

REPO = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(REPO, "data", "sample.txt")
# Not collected for docstring examples (they have none): imported into a test process, they
# would do there what they do in a script, hold its stderr and set TF_CPP_MIN_LOG_LEVEL for
# every subprocess it starts, whose own start-up noise would then show.
collect_ignore = ["albert_tf/cli.py", "tests/entry_point_driver.py"]


@pytest.fixture(scope="session")
def doctest_spm_model(tmp_path_factory) -> str:
    from albert_tf.tokenization import train_sentencepiece

    prefix = tmp_path_factory.mktemp("doctest_spm") / "spm"
    return train_sentencepiece([SAMPLE], str(prefix), vocab_size=1000)


@pytest.fixture(scope="session")
def doctest_pretrain_dir(tmp_path_factory, doctest_spm_model) -> str:
    from albert_tf.data.builder import BuilderOptions, build_pretraining_data

    output_dir = str(tmp_path_factory.mktemp("doctest_records") / "pretrain")
    options = BuilderOptions(
        input_file=SAMPLE,
        output_dir=output_dir,
        spm_model_file=doctest_spm_model,
        max_seq_length=128,
        dupe_factor=2,  # The examples read a few hundred records, not the default 40 passes.
    )
    build_pretraining_data(options)
    return output_dir


# Shared files, by the name the examples read; built only for the examples that read them.
_SHARED = {"spm_model": "doctest_spm_model", "pretrain_dir": "doctest_pretrain_dir"}


@pytest.fixture(autouse=True)
def doctest_names(request, doctest_namespace) -> None:
    """Gives each docstring example the names above (other tests are left alone)."""
    if not isinstance(request.node, pytest.DoctestItem):
        return
    source = "".join(example.source for example in request.node.dtest.examples)
    for name, fixture in _SHARED.items():
        if name in source:
            doctest_namespace[name] = request.getfixturevalue(fixture)
    doctest_namespace["tmp_dir"] = str(request.getfixturevalue("tmp_path"))
