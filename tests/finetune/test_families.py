"""The families' table: every row names a family whose class says the same name and config,
names and config classes are unique, a family is imported only when asked for, and an unknown
family or config is a clear error."""

from __future__ import annotations

import subprocess
import sys

import pytest

from albert_tf.errors import UserError
from albert_tf.finetune.families import (
    FAMILIES,
    FamilySource,
    family_config,
    family_for_config,
    family_names,
    get_family,
)
from albert_tf.finetune.task_family import FinetuneTask
from tests.conftest import REPO_ROOT

BUILT_IN = ("classification", "multiple_choice", "span_qa", "tagging")


def test_the_built_in_families_are_the_table():
    assert family_names() == BUILT_IN


@pytest.mark.parametrize("name", BUILT_IN)
def test_each_row_names_a_family_that_says_the_same(name):
    family = get_family(name)
    assert issubclass(family, FinetuneTask) and family.name == name
    assert family.config_class is family_config(name)
    assert family_for_config(family.config_class()) is family


def test_names_and_config_classes_are_unique():
    configs = [family_config(name) for name in family_names()]
    assert len(set(configs)) == len(configs) == len(FAMILIES)
    tasks = [get_family(name) for name in family_names()]
    assert len(set(tasks)) == len(tasks)


def test_a_config_subclass_runs_its_parent_s_family():
    tagging = family_config("tagging")
    derived = type("MyTaggingConfig", (tagging,), {})
    assert family_for_config(derived()) is get_family("tagging")


def test_unknown_families_and_configs_are_clear_errors():
    with pytest.raises(UserError) as caught:
        get_family("ner")
    message = str(caught.value)
    assert "\n" not in message and "family='ner' is not supported" in message
    assert "choose one of classification, multiple_choice, span_qa, tagging" in message
    with pytest.raises(TypeError, match="no task family takes a dict: .*classification"):
        family_for_config({})


def test_a_row_that_disagrees_with_its_class_is_refused(monkeypatch):
    wrong = FamilySource(FAMILIES["classification"].task, FAMILIES["tagging"].config)
    monkeypatch.setitem(FAMILIES, "tagging", wrong)
    with pytest.raises(TypeError, match="ClassificationTask is not the 'tagging' family"):
        get_family("tagging")


def test_the_table_and_the_config_classes_import_no_tensorflow():
    # What a command's `--help` reads: the families' names and config classes.
    code = (
        "import sys; from albert_tf.finetune.families import family_config, family_names; "
        "[family_config(name) for name in family_names()]; "
        "assert 'tensorflow' not in sys.modules, 'tensorflow imported'"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
