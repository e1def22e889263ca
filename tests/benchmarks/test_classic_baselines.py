"""benchmarks/classic_baselines.py learns what tiny separable tasks teach, through its command
line, on a data directory laid out as the project's (no TensorFlow)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT
from tests.finetune.conftest import write_lines

pytest.importorskip("sklearn")
pytest.importorskip("sklearn_crfsuite")
classic_baselines = pytest.importorskip("benchmarks.classic_baselines")

POSITIVE = ["a great film", "great fun", "truly great acting", "a great , warm story"]
NEGATIVE = ["an awful film", "awful fun", "truly awful acting", "an awful , cold story"]
# Each question's answer is the first word of the sentence sharing its words: n = 1 is learned.
SQUAD_CONTEXT = "Paris hosts the summer games. Berlin sees the cold winter. Rome keeps old ruins."
SQUAD_QUESTIONS = [
    ("Which city hosts the summer games?", "Paris"),
    ("Which city sees the cold winter?", "Berlin"),
    ("Which city keeps old ruins?", "Rome"),
]
RACE_ARTICLE = (
    "Tom plays chess every day. The weather was cold and grey all week. Ann paints pictures "
    "in Rome."
)


def _squad_file(path: pathlib.Path, questions, impossible: tuple[str, ...] = ()) -> None:
    qas = [
        {
            "id": f"q{i}",
            "question": question,
            "answers": [{"text": answer, "answer_start": SQUAD_CONTEXT.index(answer)}],
        }
        for i, (question, answer) in enumerate(questions)
    ]
    qas += [
        {"id": f"x{i}", "question": question, "answers": [], "is_impossible": True}
        for i, question in enumerate(impossible)
    ]
    document = {"data": [{"title": "t", "paragraphs": [{"context": SQUAD_CONTEXT, "qas": qas}]}]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")


@pytest.fixture
def data_dir(tmp_path) -> pathlib.Path:
    rows = [f"{good}\t1\n{bad}\t0" for good, bad in zip(POSITIVE, NEGATIVE, strict=True)]
    write_lines(tmp_path / "glue/SST-2/train.tsv", ["sentence\tlabel", *rows])
    write_lines(tmp_path / "glue/SST-2/dev.tsv", ["sentence\tlabel", "great !\t1", "awful !\t0"])
    sentences = [["I", "love", "Paris"], ["visit", "London", "today"], ["Paris", "again"]]
    tags = [["O", "O", "B-location"], ["O", "B-location", "O"], ["B-location", "O"]]
    conll = []
    for words, sentence_tags in zip(sentences * 3, tags * 3, strict=True):
        conll += [f"{word}\t{tag}" for word, tag in zip(words, sentence_tags, strict=True)] + [""]
    write_lines(tmp_path / "wnut17/wnut17train.conll", conll)
    write_lines(tmp_path / "wnut17/emerging.dev.conll", conll[:8])
    _squad_file(tmp_path / "squad/v2.0/train.json", SQUAD_QUESTIONS[:2], ("Who won?",))
    _squad_file(tmp_path / "squad/v2.0/dev.json", SQUAD_QUESTIONS[2:], ("Who lost?",))
    _squad_file(tmp_path / "squad/v1.1/xquad.en.json", SQUAD_QUESTIONS)
    article = {
        "id": "a",
        "article": RACE_ARTICLE,
        "questions": ["Who plays chess?", "Who paints pictures?"],
        "options": [["Ann", "Tom", "Bob", "Sue"], ["Tom", "Bob", "Ann"]],
        "answers": ["B", "C"],
    }
    (tmp_path / "race_plus/dev").mkdir(parents=True)
    (tmp_path / "race_plus/dev/a.json").write_text(json.dumps(article), encoding="utf-8")
    return tmp_path


def test_each_family_learns_a_separable_toy_task(data_dir, tmp_path, capsys):
    output = tmp_path / "rows.json"
    classic_baselines.main(
        [
            f"--data_dir={data_dir}",
            "--tasks=sst-2,wnut17,squad,race_plus",
            "--max_train_examples=0,4,100",
            f"--output={output}",
        ]
    )
    rows = json.loads(output.read_text())
    # 100 covers each whole training file, as 0 does: its rows are kept once.
    assert [row["task"] for row in rows] == [
        "sst-2",
        "sst-2, first 4",
        "wnut17",
        "wnut17, first 4",
        "squad v2.0/dev",
        "squad v1.1/xquad.en",
        "race_plus",
        "race_plus",
        "race_plus held out",  # The article's hash puts it in the held-out 20%.
        "race_plus held out",
    ]
    sst2, _, wnut17, _, squad, xquad, window, window_distance, *_ = rows
    assert sst2["score"] == 100.0 and sst2["train_examples"] == 8 and sst2["dev_examples"] == 2
    assert sst2["metrics"]["C"] in classic_baselines.C_GRID  # Chosen on the 8 training texts.
    assert wnut17["score"] == 100.0 and wnut17["metrics"]["found_gold"] == 2
    # n = 1 is learned; one answerable question (right) and one unanswerable (never abstains).
    assert squad["baseline"] == "first 1 words of the best-overlap sentence"
    assert squad["metrics"]["HasAns_f1"] == 100.0 and squad["score"] == 50.0
    assert squad["metrics"]["no_answer/f1"] == 50.0 and xquad["score"] == 100.0
    assert window["score"] == window_distance["score"] == 100.0
    assert window["fit_seconds"] is None and window["train_examples"] == 0
    assert "| sst-2, first 4 | TF-IDF word 1-2-grams" in capsys.readouterr().out


def test_regularization_folds_follow_the_smallest_class():
    # Stratified folds need an example of each class in each fold; one example: C = 1.
    for labels, folds in (([0] * 9 + [1] * 6, 5), ([0, 0, 0, 1, 1], 2), ([0, 0, 1], None)):
        regression = classic_baselines.tfidf_logistic_regression("word", (1, 1), 1, labels)[-1]
        assert getattr(regression, "cv", None) == folds and (folds or regression.C == 1.0)


def test_bad_flags_stop_before_any_work(data_dir, capsys):
    for flag, message in (
        ("--tasks=sst-3", "unknown sst-3"),
        ("--max_train_examples=all", "not a list of integers"),
        ("--output=rows.txt", "must end in .json or .md"),
        ("--tasks=rte", "RTE: missing"),
    ):
        with pytest.raises(SystemExit):
            classic_baselines.main([f"--data_dir={data_dir}", flag])
        assert message in capsys.readouterr().err


def test_a_run_loads_no_tensorflow(data_dir, tmp_path):
    output = tmp_path / "rows.md"
    code = (
        "import sys, benchmarks.classic_baselines as b; "
        f"b.main(['--data_dir={data_dir}', '--tasks=sst-2,wnut17', '--output={output}']); "
        "assert 'tensorflow' not in sys.modules, 'tensorflow imported'"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, timeout=60
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert output.read_text().startswith("| task (dev) | baseline |")
