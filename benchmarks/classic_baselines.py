"""Classic baselines of every task family on the project's data: the score to beat, fit seconds.

Each row trains (or, for multiple choice, just runs) a classic method on the files fine-tuning
reads, read by the family's own reader (the same examples, `--max_train_examples` as the
fine-tuning flag: the first N), and scores the dev file with the family's own metric:

* classification (SST-2, RTE, ChnSentiCorp): TF-IDF n-grams + logistic regression
  (scikit-learn), its C chosen by 5-fold cross-validation on the training examples: word
  1-2-grams for English, character 1-3-grams for Chinese (no word boundaries); a pair task
  (RTE) gets one vectorizer per text. Accuracy.
* tagging (WNUT-17, People's Daily NER): a linear-chain CRF (sklearn-crfsuite, L-BFGS with
  L1 + L2) on a window of tokens +-2 and the bigrams in it, plus word shapes for English words.
  The family's conlleval F1 (entities).
* span QA (SQuAD v2.0 half-dev split, XQuAD English): `albert_tf.finetune.span_qa.baseline` (the
  first n words of the passage sentence that shares most question words, n chosen on the
  training file), scored officially (F1).
* multiple choice (RACE+ whole and held out, Cosmos QA held out, as
  `albert-tf choice --holdout_fraction=0.2` holds out): MCTest's sliding window, without and
  with its distance term
  (`albert_tf.finetune.multiple_choice.baseline`). Accuracy.

Scores are percentages; fit seconds are this process's CPU seconds. scikit-learn and
sklearn-crfsuite come with the `bench` extra; albert_tf itself never imports them. No TensorFlow
is loaded.

Examples:
    python benchmarks/classic_baselines.py --output=baselines.md     # the default rows
    python benchmarks/classic_baselines.py --tasks=peopledaily --max_train_examples=0,8000
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from albert_tf.atomic_files import atomic_output_file
from albert_tf.finetune.classification.examples import Examples, infer_labels, read_examples
from albert_tf.finetune.classification.metrics import compute_metrics
from albert_tf.finetune.classification.task_specs import TaskSpec, generic_task, get_task
from albert_tf.finetune.multiple_choice import metrics as choice_metrics
from albert_tf.finetune.multiple_choice.baseline import sliding_window_answer
from albert_tf.finetune.multiple_choice.examples import (
    MultipleChoiceExample,
    read_generic,
    read_race,
    split_by_group,
)
from albert_tf.finetune.span_qa.baseline import baseline_scores, choose_num_words
from albert_tf.finetune.span_qa.examples import read_squad
from albert_tf.finetune.tagging.conlleval import conlleval
from albert_tf.finetune.tagging.sentences import TaggedSentences, read_tagged_file

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The project's public data sets (each folder's SOURCE.md says where it comes from).
DATA_DIR = os.path.join(os.path.dirname(REPO_ROOT), "shared", "data")
# RACE+ and Cosmos QA have one labeled file each; fine-tuning (docs/multiple_choice.md) holds
# out this share of its articles / contexts as dev.
HOLDOUT_FRACTION = 0.2


@dataclasses.dataclass(frozen=True)
class Row:
    """One baseline on one dev file.

    Attributes:
        task: the task (and training size, when not all).
        baseline: the method.
        train_examples: training examples used (0: nothing is trained).
        dev_examples: examples scored.
        metric: the headline metric's name; `score` its value in percent.
        fit_seconds: CPU seconds spent learning from the training data (None: nothing learned).
        metrics: every figure of the family's metric function.
    """

    task: str
    baseline: str
    train_examples: int
    dev_examples: int
    metric: str
    score: float
    fit_seconds: float | None
    metrics: dict[str, float]


@dataclasses.dataclass(frozen=True)
class Task:
    """A task's files under the data directory and how its baselines run.

    `run(data_dir, max_train_examples)` returns its rows; `sizes` are the default training
    sizes (0: all the file; empty: the baseline trains on nothing).
    """

    name: str
    files: tuple[str, ...]
    sizes: tuple[int, ...]
    run: Callable[[str, int], list[Row]]


def _timed(function: Callable, *args):
    """(result, CPU seconds of this process): on a shared machine wall time measures the
    neighbours too."""
    start = time.process_time()
    result = function(*args)
    return result, time.process_time() - start


# -- classification ---------------------------------------------------------------------------


# The inverse regularization strengths logistic regression chooses among, by cross-validation
# on the training examples (never the dev file): with scikit-learn's default (C = 1) the
# linear model is over-regularized on these sets, up to 3.5 accuracy points below its best.
C_GRID = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
CV_FOLDS = 5


def tfidf_logistic_regression(
    analyzer: str, ngram_range: tuple[int, int], num_texts: int, labels: Sequence[int]
):
    """TF-IDF n-grams of each text column (one vectorizer per text of a pair), then logistic
    regression with C chosen from `C_GRID` by stratified `CV_FOLDS`-fold cross-validation on
    the training `labels` (fewer folds when a class has fewer examples; C = 1 below two): an
    unfitted scikit-learn pipeline over `text_matrix` rows."""
    # Imported here, as sklearn_crfsuite: the bench extra loads only when a baseline runs.
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
    from sklearn.pipeline import make_pipeline

    vectorizers = ColumnTransformer(
        [
            (f"text_{i}", TfidfVectorizer(analyzer=analyzer, ngram_range=ngram_range), i)
            for i in range(num_texts)
        ]
    )
    folds = min(CV_FOLDS, *np.unique(labels, return_counts=True)[1])
    if folds < 2:
        return make_pipeline(vectorizers, LogisticRegression(max_iter=1000))
    regression = LogisticRegressionCV(
        Cs=list(C_GRID),
        l1_ratios=(0.0,),  # L2, spelled as scikit-learn 1.10 will require.
        cv=folds,
        scoring="accuracy",
        max_iter=1000,
        use_legacy_attributes=False,
    )
    return make_pipeline(vectorizers, regression)


def text_matrix(examples: Examples) -> np.ndarray:
    """(examples, 1 or 2) object array of the texts."""
    columns = [examples.texts_a] + ([examples.texts_b] if examples.texts_b is not None else [])
    return np.array(list(zip(*columns, strict=True)), dtype=object)


def classification_rows(
    name: str,
    spec: TaskSpec,
    directory: str,
    max_train_examples: int,
    analyzer: str,
    ngram_range: tuple[int, int],
) -> list[Row]:
    if spec.labels is None:  # A generic task: labels from the training file, as fine-tuning.
        spec = spec.with_labels(infer_labels(os.path.join(directory, spec.train_file), spec))
    train = read_examples(os.path.join(directory, spec.train_file), spec)
    train = train.take(max_train_examples or len(train))
    dev = read_examples(os.path.join(directory, spec.dev_files[0][0]), spec)
    features = text_matrix(train)
    model = tfidf_logistic_regression(analyzer, ngram_range, features.shape[1], train.labels)
    _, seconds = _timed(model.fit, features, train.labels)
    scores = compute_metrics(spec.metrics, dev.labels, model.predict(text_matrix(dev)))
    regression = model[-1]
    scores["C"] = float(regression.C_ if hasattr(regression, "C_") else regression.C)
    low, high = ngram_range
    method = f"TF-IDF {analyzer} {low}-{high}-grams + logistic regression (C by CV)"
    accuracy = 100 * scores["accuracy"]
    return [Row(name, method, len(train), len(dev), "accuracy", accuracy, seconds, scores)]


def _glue(task: str) -> Callable[[str, int], list[Row]]:
    return lambda data_dir, size: classification_rows(
        task, get_task(task), os.path.join(data_dir, "glue", task.upper()), size, "word", (1, 2)
    )


def _chnsenticorp(data_dir: str, size: int) -> list[Row]:
    spec = generic_task("tsv", text_a_column="text_a", label_column="label")
    directory = os.path.join(data_dir, "chinese", "chnsenticorp")
    return classification_rows("chnsenticorp", spec, directory, size, "char", (1, 3))


# -- tagging ----------------------------------------------------------------------------------

_SHAPES = ((re.compile(r"[A-Z]+"), "X"), (re.compile(r"[a-z]+"), "x"), (re.compile(r"\d+"), "d"))


def word_shape(word: str) -> str:
    """`Paris` -> `Xx`, `COVID-19` -> `X-d`: capitalization and digits, runs collapsed."""
    for pattern, letter in _SHAPES:
        word = pattern.sub(letter, word)
    return word


def token_features(tokens: Sequence[str], shapes: bool) -> list[dict[str, str | float]]:
    """CRF features of each token: the (lowercased) tokens at -2..+2, the bigrams of adjacent
    tokens in that window and, with `shapes` (words, not characters), the word's shape, its
    affixes and whether it is capitalized."""
    padded = ["<s>", "<s>", *(token.lower() for token in tokens), "</s>", "</s>"]
    features = []
    for i, token in enumerate(tokens):
        window = padded[i : i + 5]  # Tokens i-2 .. i+2.
        feature: dict[str, str | float] = {"bias": 1.0}
        feature.update({f"w[{offset - 2}]": window[offset] for offset in range(5)})
        feature.update({f"w[{j - 2}:{j - 1}]": f"{window[j]}|{window[j + 1]}" for j in range(4)})
        if shapes:
            feature.update(
                shape=word_shape(token),
                prefix=token[:3].lower(),
                suffix=token[-3:].lower(),
                title=float(token.istitle()),
            )
        features.append(feature)
    return features


def window_crf(train: TaggedSentences, shapes: bool):
    """A linear-chain CRF fitted on `train` (L-BFGS, c1 = c2 = 0.1, 100 iterations)."""
    import sklearn_crfsuite

    crf = sklearn_crfsuite.CRF(
        algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=100, all_possible_transitions=True
    )
    crf.fit([token_features(words, shapes) for words in train.words], train.tags)
    return crf


def tagging_rows(
    name: str, directory: str, files: tuple[str, str], size: int, shapes: bool
) -> list[Row]:
    train = read_tagged_file(os.path.join(directory, files[0]))
    train = train.take(size or len(train))
    dev = read_tagged_file(os.path.join(directory, files[1]))
    crf, seconds = _timed(window_crf, train, shapes)
    predicted = crf.predict([token_features(words, shapes) for words in dev.words])
    scores = conlleval(dev.tags, predicted)
    method = "CRF, tokens ±2 and bigrams" + (" + word shapes" if shapes else "")
    return [Row(name, method, len(train), len(dev), "F1", 100 * scores["f1"], seconds, scores)]


def _wnut17(data_dir: str, size: int) -> list[Row]:
    files = ("wnut17train.conll", "emerging.dev.conll")
    return tagging_rows("wnut17", os.path.join(data_dir, "wnut17"), files, size, shapes=True)


def _peopledaily(data_dir: str, size: int) -> list[Row]:
    directory = os.path.join(data_dir, "chinese", "peopledaily_ner")
    return tagging_rows("peopledaily", directory, ("train.txt", "dev.txt"), size, shapes=False)


# -- span QA ----------------------------------------------------------------------------------

SQUAD_DEV_FILES = ("v2.0/dev.json", "v1.1/xquad.en.json")


def _squad(data_dir: str, size: int) -> list[Row]:
    train = read_squad(os.path.join(data_dir, "squad", "v2.0", "train.json")).examples
    train = train[: size or None]
    num_words, seconds = _timed(choose_num_words, train)
    rows = []
    for file_name in SQUAD_DEV_FILES:
        data = read_squad(os.path.join(data_dir, "squad", file_name))
        scores = baseline_scores(data, num_words)
        method = f"first {num_words} words of the best-overlap sentence"
        name = "squad " + file_name.removesuffix(".json")
        rows.append(
            Row(name, method, len(train), len(data.examples), "F1", scores["f1"], seconds, scores)
        )
    return rows


# -- multiple choice --------------------------------------------------------------------------


def choice_rows(name: str, examples: list[MultipleChoiceExample]) -> list[Row]:
    if not examples:  # Nothing held out (a tiny file).
        return []
    rows = []
    for distance, method in ((False, "sliding window"), (True, "sliding window + distance")):
        predicted = [sliding_window_answer(example, distance) for example in examples]
        scores = choice_metrics.compute_metrics(
            [e.label for e in examples], predicted, [e.level for e in examples]
        )
        accuracy = 100 * scores["accuracy"]
        rows.append(Row(name, method, 0, len(examples), "accuracy", accuracy, None, scores))
    return rows


def _race_plus(data_dir: str, size: int) -> list[Row]:
    """Every question, and those `albert-tf choice --holdout_fraction=0.2` holds out."""
    examples = read_race(os.path.join(data_dir, "race_plus", "dev"))
    held_out = split_by_group(examples, HOLDOUT_FRACTION)[1]
    return choice_rows("race_plus", examples) + choice_rows("race_plus held out", held_out)


def _cosmosqa(data_dir: str, size: int) -> list[Row]:
    examples = read_generic(os.path.join(data_dir, "cosmosqa", "valid.csv"))
    return choice_rows("cosmosqa held out", split_by_group(examples, HOLDOUT_FRACTION)[1])


TASKS = (
    Task("sst-2", ("glue/SST-2",), (0, 500, 2000, 4000, 8000), _glue("sst-2")),
    Task("rte", ("glue/RTE",), (0,), _glue("rte")),
    Task("chnsenticorp", ("chinese/chnsenticorp",), (0,), _chnsenticorp),
    Task("wnut17", ("wnut17",), (0,), _wnut17),
    # All 48,658 sentences take ~11 minutes on 2 cores: --max_train_examples=0 asks for them.
    Task("peopledaily", ("chinese/peopledaily_ner",), (8000,), _peopledaily),
    Task("squad", ("squad/v2.0", "squad/v1.1"), (0,), _squad),
    Task("race_plus", ("race_plus/dev",), (), _race_plus),
    Task("cosmosqa", ("cosmosqa/valid.csv",), (), _cosmosqa),
)
TASK_NAMES = tuple(task.name for task in TASKS)


def run_task(task: Task, data_dir: str, sizes: Sequence[int] | None = None) -> list[Row]:
    """`task`'s rows for each training size (`sizes`, default the task's own); a size that
    covers the whole training file gives the rows of all of it, kept once."""
    if not task.sizes:
        return task.run(data_dir, 0)
    rows: list[Row] = []
    seen: set[int] = set()
    for size in task.sizes if sizes is None else sizes:
        produced = task.run(data_dir, size)
        count = produced[0].train_examples
        if count in seen:
            continue
        seen.add(count)
        if size and count == size:
            produced = [dataclasses.replace(r, task=f"{r.task}, first {size:,}") for r in produced]
        rows.extend(produced)
    return rows


def markdown_table(rows: Sequence[Row]) -> str:
    lines = [
        "| task (dev) | baseline | train examples | dev examples | score | fit CPU s |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        seconds = "-" if row.fit_seconds is None else f"{row.fit_seconds:.1f}"
        lines.append(
            f"| {row.task} | {row.baseline} | {row.train_examples:,} | {row.dev_examples:,} "
            f"| {row.metric} {row.score:.1f} | {seconds} |"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--tasks",
        default=",".join(TASK_NAMES),
        help=f"Comma-separated tasks among {', '.join(TASK_NAMES)} (default: all).",
    )
    parser.add_argument(
        "--max_train_examples",
        default="",
        help="Comma-separated training sizes for every task that trains (0: the whole file); "
        "default: each task's own (SST-2 all, 500, 2000, 4000, 8000; People's Daily 8000; "
        "the others all).",
    )
    parser.add_argument(
        "--data_dir",
        default=DATA_DIR,
        help="The project's public data sets (../shared/data beside the repository; see each "
        "folder's SOURCE.md).",
    )
    parser.add_argument(
        "--output", default="", help="Also write the rows to this .json or .md (a table) file."
    )
    args = parser.parse_args(argv)
    args.tasks = [name.strip() for name in args.tasks.split(",") if name.strip()]
    unknown = sorted(set(args.tasks) - set(TASK_NAMES))
    if unknown:
        parser.error(f"--tasks: unknown {', '.join(unknown)}; choose from {', '.join(TASK_NAMES)}")
    try:
        sizes = [int(size) for size in args.max_train_examples.split(",") if size.strip()]
    except ValueError:
        parser.error(f"--max_train_examples: {args.max_train_examples!r} is not a list of integers")
    if any(size < 0 for size in sizes):
        parser.error("--max_train_examples: sizes must be 0 (all) or more")
    args.sizes = sizes or None
    if args.output and not args.output.endswith((".json", ".md")):
        parser.error(f"--output: {args.output} must end in .json or .md")
    for task in TASKS:
        for path in task.files if task.name in args.tasks else ():
            if not os.path.exists(os.path.join(args.data_dir, path)):
                parser.error(f"{os.path.join(args.data_dir, path)}: missing (check --data_dir)")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    rows: list[Row] = []
    for task in TASKS:
        if task.name not in args.tasks:
            continue
        for row in run_task(task, args.data_dir, args.sizes):
            seconds = "" if row.fit_seconds is None else f", fit {row.fit_seconds:.1f} s"
            print(
                f"{row.task}: {row.baseline}: {row.metric} {row.score:.1f}{seconds}",
                file=sys.stderr,
            )
            rows.append(row)
    table = markdown_table(rows)
    print(table)
    if args.output:
        as_json = json.dumps([dataclasses.asdict(row) for row in rows], indent=2)
        with atomic_output_file(args.output) as path, open(path, "w", encoding="utf-8") as f:
            f.write(as_json if args.output.endswith(".json") else table + "\n")


if __name__ == "__main__":
    main()
