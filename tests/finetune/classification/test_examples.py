"""Reading task files: every GLUE layout, the real SST-2/RTE files, generic TSV/CSV, errors."""

from __future__ import annotations

import numpy as np
import pytest

from albert_tf.finetune.classification.examples import infer_labels, read_examples, read_unlabeled
from albert_tf.finetune.classification.task_specs import generic_task, get_task
from tests.finetune.classification.conftest import GLUE_DIR
from tests.finetune.conftest import write_lines

T = "\t"
MNLI_PARSES = ["( ( A ) b )", "( c )", "(ROOT (S a))", "(ROOT (S c))"]

# Per task: labeled lines (official GLUE column layout), the expected (text_a, text_b, label)
# of each example, and unlabeled test lines with their expected ids.
GLUE_FIXTURES = {
    "cola": (
        ["gj04\t1\t\tOur friends won't buy this analysis.", "gj04\t0\t*\tThey drank the pub."],
        [("Our friends won't buy this analysis.", None, "1"), ("They drank the pub.", None, "0")],
        ["index\tsentence", "0\tBill whistled past the house.", "1\tThe car honked."],
        ["0", "1"],
    ),
    "sst-2": (
        ["sentence\tlabel", "hide new secretions \t0", "a charming journey \t1"],
        [("hide new secretions ", None, "0"), ("a charming journey ", None, "1")],
        ["index\tsentence", "0\tuneasy mishmash ", "1\tgood fun "],
        ["0", "1"],
    ),
    "mrpc": (
        [
            "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String",
            "1\t702876\t702977\tAmrozi accused his brother.\tReferring to him, Amrozi accused.",
            "0\t2108705\t2108831\tYucaipa owned Dominick's.\tYucaipa bought Dominick's in 1995.",
        ],
        [
            ("Amrozi accused his brother.", "Referring to him, Amrozi accused.", "1"),
            ("Yucaipa owned Dominick's.", "Yucaipa bought Dominick's in 1995.", "0"),
        ],
        [
            "index\t#1 ID\t#2 ID\t#1 String\t#2 String",
            "7\t1089874\t1089925\tPCCW's chief.\tHe left.",
        ],
        ["7"],
    ),
    "sts-b": (
        [
            "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore",
            "0\tmain-captions\tMSRvid\t2012test\t0001\tnone\tnone\tA plane takes off.\tA jet "
            "takes off.\t5.000",
            "1\tmain-captions\tMSRvid\t2012test\t0004\tnone\tnone\tA man plays a flute.\tA man "
            "eats.\t0.750",
        ],
        [
            ("A plane takes off.", "A jet takes off.", 5.0),
            ("A man plays a flute.", "A man eats.", 0.75),
        ],
        [
            "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2",
            "0\tmain-captions\tMSRvid\t2012test\t0024\tnone\tnone\tA girl sings.\tShe sings.",
        ],
        ["0"],
    ),
    "qqp": (
        [
            "id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate",
            "133273\t213221\t213222\tHow is life as a math student?\tWhich level is best?\t0",
            "402555\t536040\t536041\tHow do I control my horny emotions?\tHow do you do it?\t1",
        ],
        [
            ("How is life as a math student?", "Which level is best?", "0"),
            ("How do I control my horny emotions?", "How do you do it?", "1"),
        ],
        ["id\tquestion1\tquestion2", "0\tWould it be wrong?\tIs it wrong?"],
        ["0"],
    ),
    "mnli": (
        [
            "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\t"
            "sentence1_parse\tsentence2_parse\tsentence1\tsentence2\tlabel1\tgold_label",
            T.join(
                [
                    "0",
                    "31193",
                    "31193n",
                    "government",
                    *MNLI_PARSES,
                    "Cream skimming.",
                    "Product and geography.",
                    "neutral",
                    "neutral",
                ]
            ),
            T.join(
                [
                    "1",
                    "101457",
                    "101457e",
                    "telephone",
                    *MNLI_PARSES,
                    "you know during it",
                    "You lose the things.",
                    "entailment",
                    "entailment",
                ]
            ),
        ],
        [
            ("Cream skimming.", "Product and geography.", "neutral"),
            ("you know during it", "You lose the things.", "entailment"),
        ],
        [
            "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\t"
            "sentence1_parse\tsentence2_parse\tsentence1\tsentence2",
            T.join(["0", "31193", "31193n", "government", *MNLI_PARSES, "Hello.", "Hi."]),
        ],
        ["0"],
    ),
    "qnli": (
        [
            "index\tquestion\tsentence\tlabel",
            "0\tWhen did the war start?\tThe war started in 1914.\tentailment",
            "1\tWho is he?\tThe sky is blue.\tnot_entailment",
        ],
        [
            ("When did the war start?", "The war started in 1914.", "entailment"),
            ("Who is he?", "The sky is blue.", "not_entailment"),
        ],
        ["index\tquestion\tsentence", "0\tWhat is it?\tIt is a cat."],
        ["0"],
    ),
    "rte": (
        [
            "index\tsentence1\tsentence2\tlabel",
            '0\tNo "Weapons" Found in Iraq Yet.\tWeapons Found in Iraq.\tnot_entailment',
            "1\tA place of sorrow.\tPope Benedict XVI is the new leader.\tentailment",
        ],
        [
            ('No "Weapons" Found in Iraq Yet.', "Weapons Found in Iraq.", "not_entailment"),
            ("A place of sorrow.", "Pope Benedict XVI is the new leader.", "entailment"),
        ],
        ["index\tsentence1\tsentence2", "0\tMaude is here.\tMaude left."],
        ["0"],
    ),
}


@pytest.mark.parametrize("task", sorted(GLUE_FIXTURES))
def test_glue_layouts_parse(task, tmp_path):
    lines, expected, test_lines, test_ids = GLUE_FIXTURES[task]
    spec = get_task(task)
    examples = read_examples(write_lines(tmp_path / "dev.tsv", lines), spec)
    assert examples.texts_a == [a for a, _, _ in expected]
    if spec.is_pair:
        assert examples.texts_b == [b for _, b, _ in expected]
    else:
        assert examples.texts_b is None
    if spec.problem == "regression":
        np.testing.assert_allclose(examples.labels, [label for _, _, label in expected])
    else:
        assert [spec.labels[i] for i in examples.labels] == [label for _, _, label in expected]
    test = read_unlabeled(write_lines(tmp_path / "test.tsv", test_lines), spec)
    assert test.labels is None and test.ids == test_ids and len(test) == len(test_ids)


def test_real_sst2_and_rte_dev_files():
    sst2 = read_examples(str(GLUE_DIR / "SST-2" / "dev.tsv"), get_task("sst-2"))
    assert len(sst2) == 872 and np.bincount(sst2.labels).tolist() == [428, 444]
    assert sst2.texts_a[0] == "it 's a charming and often affecting journey . "
    rte = read_examples(str(GLUE_DIR / "RTE" / "dev.tsv"), get_task("rte"))
    assert len(rte) == 277 and np.bincount(rte.labels).tolist() == [146, 131]
    assert rte.texts_b[1] == "Bacteria is winning the war against antibiotics."
    # A dev file can be predicted on: the labeled layout is used, ids are row numbers.
    unlabeled = read_unlabeled(str(GLUE_DIR / "RTE" / "dev.tsv"), get_task("rte"))
    assert unlabeled.labels is None and unlabeled.ids[:2] == ["0", "1"]


def test_generic_tsv_by_name_with_inferred_labels(tmp_path):
    path = write_lines(
        tmp_path / "train.tsv",
        ["id\treview\tstars", "a\tgreat\tfive", "b\tbad\tone", "c\tok\tthree", "d\tfine\tfive"],
    )
    spec = generic_task("tsv", "review", "stars", index_column="id")
    labels = infer_labels(path, spec)
    assert labels == ("five", "one", "three")
    examples = read_examples(path, spec.with_labels(labels))
    assert examples.texts_a == ["great", "bad", "ok", "fine"]
    assert examples.labels.tolist() == [0, 1, 2, 0] and examples.ids == ["a", "b", "c", "d"]


def test_generic_tsv_by_position_regression_pair(tmp_path):
    path = write_lines(tmp_path / "train.tsv", ["2.5\tleft one\tright one", "-1\tl2\tr2"])
    spec = generic_task("tsv", "1", "0", text_b_column="2", has_header=False, problem="regression")
    examples = read_examples(path, spec)
    assert examples.texts_b == ["right one", "r2"]
    assert examples.labels.dtype == np.float32 and examples.labels.tolist() == [2.5, -1.0]
    assert examples.ids == ["0", "1"]


def test_generic_csv_quoting(tmp_path):
    path = write_lines(
        tmp_path / "train.csv", ["text,label", '"Hello, world",pos', '"He said ""no""",neg']
    )
    spec = generic_task("csv", "text", "label", labels=["neg", "pos"])
    examples = read_examples(path, spec)
    assert examples.texts_a == ["Hello, world", 'He said "no"'] and examples.labels.tolist() == [
        1,
        0,
    ]


def test_missing_column_names_file_and_line(tmp_path):
    path = write_lines(
        tmp_path / "dev.tsv",
        ["index\tsentence1\tsentence2\tlabel", "0\ta\tb\tentailment", "1\tonly one column"],
    )
    with pytest.raises(ValueError, match=r"dev.tsv:3: missing second text column 'sentence2'"):
        read_examples(path, get_task("rte"))


def test_unknown_label_names_file_and_line(tmp_path):
    path = write_lines(tmp_path / "dev.tsv", ["sentence\tlabel", "good\t1", "meh\t2"])
    with pytest.raises(ValueError, match=r"dev.tsv:3: unknown label '2'; task sst-2 has labels"):
        read_examples(path, get_task("sst-2"))


def test_wrong_task_for_the_file_is_named(tmp_path):
    path = write_lines(tmp_path / "train.tsv", ["index\tsentence1\tsentence2\tlabel", "0\ta\tb\tc"])
    with pytest.raises(
        ValueError,
        match=r"train.tsv:1: the header has no column 'sentence' "
        r"for task sst-2",
    ):
        read_examples(path, get_task("sst-2"))


def test_empty_and_header_only_files(tmp_path):
    empty = write_lines(tmp_path / "empty.tsv", [])
    with pytest.raises(ValueError, match="empty.tsv: empty file"):
        read_examples(empty, get_task("sst-2"))
    header_only = write_lines(tmp_path / "header.tsv", ["sentence\tlabel"])
    with pytest.raises(ValueError, match="header.tsv: no examples"):
        read_examples(header_only, get_task("sst-2"))
    with pytest.raises(FileNotFoundError, match="nowhere.tsv: no such file"):
        read_examples(str(tmp_path / "nowhere.tsv"), get_task("sst-2"))


def test_bad_score_and_single_class(tmp_path):
    path = write_lines(tmp_path / "s.tsv", ["0\ta\tb\t4.0", "1\tc\td\thigh"])
    spec = generic_task("tsv", "1", "3", text_b_column="2", has_header=False, problem="regression")
    with pytest.raises(ValueError, match=r"s.tsv:2: label 'high' is not a number"):
        read_examples(path, spec)
    single = write_lines(tmp_path / "one.tsv", ["text\tlabel", "a\tx", "b\tx"])
    with pytest.raises(ValueError, match="every example has label 'x'"):
        infer_labels(single, generic_task("tsv", "text", "label"))
