"""Keeps the tests of each expensive fixture on one xdist worker, so it is built once per run,
and hands out the modules that hold slow tests first, so that no long test is left for the end.

`scripts/test.sh` runs the suite with `-n 2 --dist loadgroup`: tests marked
`xdist_group(name)` go to one worker together, the rest are spread test by test. A session
or module fixture is built once per worker that runs a test needing it, so without the
group a 70 s fixture is often built twice. `tests/conftest.py` imports the hooks below.
"""

from __future__ import annotations

import pytest

# Session fixtures that take seconds to build (setup time on 2 cores), grouped by name: all
# their tests, in whatever folder, share one worker.
SESSION_BUILDS = (
    "two_cell_experiment",  # ~30 s: two pretraining cells and a downstream column
    "choice_run",  # ~30 s: multiple-choice fine-tuning and export
    "span_qa_run",  # ~20 s: span QA fine-tuning and export
    "finetuned_run",  # ~20 s: classification fine-tuning and export
    "tagging_run",  # ~20 s: tagging fine-tuning and export
)
# Module fixtures that take seconds to build, grouped by module: the module stays on one worker.
MODULE_BUILDS = (
    "full_run",  # test_pretrain.py: a 6-step pretraining run
    "train",  # test_pretrain_step.py: a compiled pretraining step
    "sm_export_dir",  # test_saved_model.py: a pretrainer export
    "hub_dir",  # tfhub/test_export.py: a TF Hub preprocessor + encoder export
    "exports",  # test_tf1_loaders.py: every kind of export
    "inputs",  # test_bad_input_matrix.py: records, configs and a checkpoint to corrupt
    "served",  # classification/test_serving_hostile_inputs.py: a loaded SavedModel
    "pretrainer_file",  # test_kill_during_writes.py: a saved pretrainer
    "script_workdir",  # test_saved_model_script.py: a pretraining run to export
    "converted_dir",  # test_hf_classifier_serving.py: a converted Hugging Face classifier
    "albert_presets",  # test_keras_hub.py: albert_tf models written as keras-hub presets
    "keras_hub_presets",  # test_keras_hub.py: presets keras-hub writes from random models
    "digit_run",  # test_toy_family.py: the toy task family trained and exported
    "jieba_records",  # data/test_chinese_records.py: Chinese records with jieba's words
    "chinese_tagger",  # tagging/test_chinese.py: a Chinese tagger fine-tuned and exported
)


def group_of(fixturenames: list[str], module: str) -> str | None:
    """The xdist group of a test that needs `fixturenames` (their closure), or None."""
    # One group per test: the first session build it needs (needing two is rare), else its module.
    session = next((name for name in SESSION_BUILDS if name in fixturenames), None)
    if session is None and any(name in fixturenames for name in MODULE_BUILDS):
        return module
    return session


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist registers the mark; this keeps `-p no:xdist` runs free of unknown-mark noise.
    config.addinivalue_line("markers", "xdist_group(name): run on one xdist worker.")


# The docstring examples (`--doctest-modules albert_tf`): the files they share (the root
# conftest.py) take seconds to build.
DOCTESTS = "doctests"


@pytest.hookimpl(tryfirst=True)  # Before pytest-xdist reads the marks into the node ids.
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if isinstance(item, pytest.DoctestItem):
            group = DOCTESTS
        else:
            group = group_of(getattr(item, "fixturenames", []), item.nodeid.split("::")[0])
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    items[:] = slow_modules_first(items)


def slow_modules_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """`items` with the modules that hold a `slow` test first, each module's in their order.

    pytest-xdist hands out its units in collection order (the groups first, by size, then the
    tests one by one): a 20 s test collected last keeps one worker busy while the other
    idles. Whole modules move, so that a module's fixtures are still built once per worker.
    """
    slow_modules = {
        getattr(item, "module", None) for item in items if item.get_closest_marker("slow")
    }
    return sorted(items, key=lambda item: getattr(item, "module", None) not in slow_modules)
