"""Typed `task.json`: each family's info round-trips, earlier runs' files load, a run of another
family is refused (the families' table: test_families.py)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from albert_tf.errors import UserError
from albert_tf.finetune.classification.classification_task import (
    ClassificationInfo,
    ClassificationTask,
)
from albert_tf.finetune.driver import read_task_info
from albert_tf.finetune.multiple_choice.multiple_choice_task import (
    MultipleChoiceInfo,
    MultipleChoiceTask,
)
from albert_tf.finetune.span_qa.span_qa_task import SpanQaInfo, SpanQaTask
from albert_tf.finetune.tagging.tagging_task import TaggingInfo, TaggingTask

# task.json as each family wrote it before the info was typed (no "family" key).
EARLIER_TASK_FILES = {
    ClassificationTask: {
        "task": "sst-2",
        "problem": "classification",
        "labels": ["0", "1"],
        "metrics": ["accuracy"],
        "max_seq_length": 128,
        "do_lower_case": True,
        "is_pair": False,
    },
    SpanQaTask: {
        "task": "squad",
        "version_2_with_negative": True,
        "max_seq_length": 384,
        "doc_stride": 128,
        "max_query_length": 64,
        "do_lower_case": True,
        "null_score_diff_threshold": -1.25,
    },
    MultipleChoiceTask: {
        "task": "race",
        "max_seq_length": 512,
        "max_qa_length": 128,
        "do_lower_case": True,
        "blank_per_underscore": False,
        "baseline_answer": 1,
    },
    TaggingTask: {
        "task": "tagging",
        "labels": ["O", "B-PER", "I-PER"],
        "tag_scheme": "iob2",
        "max_seq_length": 128,
        "do_lower_case": False,
        "label_all_pieces": False,
    },
}


@pytest.mark.parametrize("family", list(EARLIER_TASK_FILES), ids=lambda f: f.name)
def test_earlier_task_files_load_and_round_trip(family, tmp_path):
    values = EARLIER_TASK_FILES[family]
    (tmp_path / "task.json").write_text(json.dumps(values))
    info = read_task_info(str(tmp_path), family(family.config_class()))
    assert isinstance(info, family.info_class)
    written = info.to_json()
    assert {name: written[name] for name in values} == values
    # Fields added since (e.g. tagging's `character_level`) take their defaults.
    defaults = {f.name: f.default for f in dataclasses.fields(family.info_class)}
    assert {name: written[name] for name in written.keys() - values.keys()} == {
        name: defaults[name] for name in written.keys() - values.keys()
    }
    assert family.info_class.from_json(info.to_json()) == info


def test_typed_fields():
    info = ClassificationInfo.from_json(EARLIER_TASK_FILES[ClassificationTask])
    assert info.labels == ("0", "1") and info.num_outputs == 2
    regression = info.replace(problem="regression", labels=None)
    assert ClassificationInfo.from_json(regression.to_json()).num_outputs == 1
    assert TaggingInfo.from_json(EARLIER_TASK_FILES[TaggingTask]).labels == ("O", "B-PER", "I-PER")
    assert SpanQaInfo.from_json(
        {**EARLIER_TASK_FILES[SpanQaTask], "null_score_diff_threshold": None}
    )
    assert MultipleChoiceInfo.from_json(EARLIER_TASK_FILES[MultipleChoiceTask]).baseline_answer == 1


def test_a_run_of_another_family_is_refused(tmp_path):
    (tmp_path / "task.json").write_text(
        json.dumps({"family": "tagging", **EARLIER_TASK_FILES[TaggingTask]})
    )
    with pytest.raises(UserError, match="holds a tagging run, not classification"):
        read_task_info(str(tmp_path), ClassificationTask(ClassificationTask.config_class()))
    # An earlier file (no family key) of another family lacks this family's fields.
    (tmp_path / "task.json").write_text(json.dumps(EARLIER_TASK_FILES[TaggingTask]))
    with pytest.raises(UserError, match="task.json has no problem, metrics, is_pair"):
        read_task_info(str(tmp_path), ClassificationTask(ClassificationTask.config_class()))
