"""Task specs: GLUE registry, name aliases, label checks, generic TSV/CSV tasks."""

from __future__ import annotations

import pytest

from albert_tf.finetune.classification.task_specs import (
    GLUE_TASKS,
    ColumnLayout,
    generic_task,
    get_task,
    parse_column,
)


def test_every_glue_task_is_registered_with_its_metric():
    expected = {
        "cola": "matthews_corrcoef",
        "sst-2": "accuracy",
        "mrpc": "f1",
        "sts-b": "pearson",
        "qqp": "accuracy",
        "mnli": "accuracy",
        "qnli": "accuracy",
        "rte": "accuracy",
    }
    assert {name: spec.metrics[0] for name, spec in GLUE_TASKS.items()} == expected
    assert get_task("sts-b").problem == "regression" and get_task("sts-b").num_outputs == 1
    assert get_task("mnli").num_outputs == 3
    assert [name for _, name in get_task("mnli").dev_files] == ["dev_matched", "dev_mismatched"]


@pytest.mark.parametrize("alias, name", [("SST-2", "sst-2"), ("sst2", "sst-2"), ("STS_B", "sts-b")])
def test_aliases(alias, name):
    assert get_task(alias).name == name


def test_unknown_task_and_wrong_labels_are_clear_errors():
    with pytest.raises(ValueError, match="task='wnli2' is not supported"):
        get_task("wnli2")
    with pytest.raises(ValueError, match=r"do not match task rte's labels"):
        get_task("rte", labels=["yes", "no"])
    with pytest.raises(ValueError, match="regression task"):
        get_task("sts-b", labels=["0", "1"])
    assert get_task("rte", labels=["entailment", "not_entailment"]).name == "rte"


def test_parse_column():
    assert parse_column("3") == 3
    assert parse_column("sentence") == "sentence"
    assert parse_column("") is None


def test_generic_task_modes():
    spec = generic_task("csv", "text", "label", text_b_column="other", labels=["no", "yes"])
    assert spec.layout.delimiter == "," and spec.is_pair and spec.labels == ("no", "yes")
    assert spec.train_file == "train.csv" and spec.test_layout.label is None
    spec = generic_task("tsv", "0", "1", has_header=False, problem="regression")
    assert spec.labels is None and spec.num_outputs == 1 and spec.layout.text_a == 0
    inferred = generic_task("tsv", "text", "label")
    with pytest.raises(ValueError, match="labels are not known"):
        _ = inferred.num_outputs
    assert inferred.with_labels(["a", "b", "c"]).num_outputs == 3


def test_generic_task_errors():
    with pytest.raises(ValueError, match="--label_column is required"):
        generic_task("tsv", "text", None)
    with pytest.raises(ValueError, match="no header"):
        generic_task("tsv", "text", "1", has_header=False)
    with pytest.raises(ValueError, match="regression task takes none"):
        generic_task("tsv", "text", "label", problem="regression", labels=["a", "b"])
    with pytest.raises(ValueError, match="duplicate labels"):
        generic_task("tsv", "text", "label", labels=["a", "a"])
    with pytest.raises(ValueError, match="names but the file has no header"):
        ColumnLayout(text_a="sentence", has_header=False)
