"""The bad-input matrix: every entry point x malformed inputs -> exit 2, one line, no output.

Each row is one command line of one `albert-tf` command (`ROWS`); every row must:
  * exit with status 2 (`albert_tf.cli`'s user-error status),
  * print exactly one line on stderr, `error: ...`, naming the offending path,
  * write nothing: the case's directory (inputs and would-be outputs) is unchanged.

All rows run in ONE process (`tests/entry_point_driver.py`, forked from the command server
with TensorFlow loaded: `tests/commands.py`), which runs each command line through the
command's own `main` and `cli.run`, as the shell would.
A new command joins with a few rows: `Row(command, case, args, offending)`, where `args` and
`offending` may use the `{name}` placeholders of `_inputs` (shared tiny files) and `{out}`
(an output path in the row's own directory).

"Unwritable directory" as root: root ignores permission bits, so the rows use a path under
`/proc`, where the kernel refuses to create entries for every user, root included.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import keras
import pytest

from albert_tf.commands import COMMANDS
from albert_tf.config import AlbertConfig
from albert_tf.data.builder import BuilderOptions, build_pretraining_data
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.tokenization.train import train_sentencepiece
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT, SAMPLE_TEXT, TINY_ALBERT

UNWRITABLE = "/proc/albert_tf_unwritable/out"
_NEGATIVE = ["a dull mess", "boring and far too long", "the worst script ever", "so bad"]
_POSITIVE = ["a fine film", "great acting and story", "the best music", "lovely"]


@dataclasses.dataclass(frozen=True)
class Row:
    """One command line: `command` with `args`; the error line must name `offending`."""

    command: str
    case: str
    args: tuple[str, ...]
    offending: str

    @property
    def id(self) -> str:
        return f"{self.command}:{self.case}"


def _rows_of(command: str, base: dict[str, str], cases: dict[str, tuple[dict, str]]) -> list[Row]:
    """Rows of `command`: each case overrides some `base` flags (None drops a flag)."""
    rows = []
    for case, (overrides, offending) in cases.items():
        flags = {**base, **overrides}
        args = tuple(
            f"--{name}" if value == "" else f"--{name}={value}"
            for name, value in flags.items()
            if value is not None
        )
        rows.append(Row(command, case, args, offending))
    return rows


_COMMON_OUTPUT_CASES = {
    "output path that is a file": ({"@out": "{a_file}"}, "{a_file}"),
    "unwritable directory": ({"@out": UNWRITABLE}, "/proc/albert_tf_unwritable"),
}


def _with_output(flag: str, cases: dict, suffix: str = "") -> dict:
    """Adds the output cases, with the output flag's name (and a suffix: `/spm`) filled in."""
    out = {}
    for case, (overrides, offending) in {**cases, **_COMMON_OUTPUT_CASES}.items():
        out[case] = (
            {
                flag if k == "@out" else k: v + suffix if k == "@out" else v
                for k, v in overrides.items()
            },
            offending,
        )
    return out


ROWS: list[Row] = [
    *_rows_of(
        "data",
        {
            "input_file": "{corpus}",
            "output_dir": "{out}",
            "spm_model_file": "{spm}",
            "max_seq_length": "32",
            "dupe_factor": "1",
        },
        _with_output(
            "output_dir",
            {
                "missing file": ({"input_file": "{missing}.txt"}, "{missing}.txt"),
                "empty file": ({"input_file": "{empty}"}, "{empty}"),
                "non-UTF-8": ({"input_file": "{latin1}"}, "{latin1}"),
                "wrong format (JSON for a SentencePiece model)": (
                    {"spm_model_file": "{config}"},
                    "{config}",
                ),
                "spm model without control symbols": (
                    {"spm_model_file": "{spm_no_control}"},
                    "{spm_no_control}",
                ),
            },
        ),
    ),
    *_rows_of(
        "tokenizer",
        {"input_files": "{corpus}", "model_prefix": "{out}/spm", "vocab_size": "100"},
        _with_output(
            "model_prefix",
            {
                "missing file": ({"input_files": "{missing}.txt"}, "{missing}.txt"),
                "empty file": ({"input_files": "{empty}"}, "{empty}"),
                "non-UTF-8": ({"input_files": "{latin1}"}, "{latin1}"),
            },
            suffix="/spm",
        ),
    ),
    *_rows_of(
        "pretrain",
        {
            "input_file": "{records}",
            "output_dir": "{out}",
            "albert_config_file": "{config}",
            "max_seq_length": "32",
            "max_predictions_per_seq": "5",
            "train_batch_size": "2",
            "num_train_steps": "1",
            "num_warmup_steps": "0",
            "precision": "float32",
        },
        _with_output(
            "output_dir",
            {
                "no model config": ({"albert_config_file": None}, "albert_config_file is required"),
                "missing file": ({"input_file": "{missing}.tfrecord"}, "{missing}.tfrecord"),
                "empty file": ({"input_file": "{empty}"}, "{empty}"),
                "truncated TFRecord": ({"input_file": "{truncated}"}, "{truncated}"),
                "records of another sequence length": (
                    {"max_seq_length": "48"},
                    "{records}",
                ),
                "wrong format (TSV for a JSON config)": (
                    {"albert_config_file": "{train_tsv}"},
                    "{train_tsv}",
                ),
                "config with unknown sharing mode": (
                    {"albert_config_file": "{bad_sharing}"},
                    "{bad_sharing}",
                ),
                "checkpoint of another shape": (
                    {"init_checkpoint": "{other_encoder}"},
                    "{other_encoder}",
                ),
            },
        ),
    ),
    *_rows_of(
        "export",
        {
            "checkpoint": "{encoder}",
            "spm_model_file": "{spm}",
            "export_dir": "{out}",
            "seq_length": "16",
        },
        _with_output(
            "export_dir",
            {
                "missing file": ({"checkpoint": "{missing}.keras"}, "{missing}.keras"),
                "empty file": ({"spm_model_file": "{empty}"}, "{empty}"),
                "wrong format (JSON for a SentencePiece model)": (
                    {"spm_model_file": "{config}"},
                    "{config}",
                ),
                "spm model without control symbols": (
                    {"spm_model_file": "{spm_no_control}"},
                    "{spm_no_control}",
                ),
                "checkpoint of another shape": (
                    {"checkpoint": "{other_encoder}", "albert_config_file": "{config}"},
                    "{other_encoder}",
                ),
                "config with unknown sharing mode": (
                    {"albert_config_file": "{bad_sharing}"},
                    "{bad_sharing}",
                ),
            },
        ),
    ),
    *_rows_of(
        "export",
        {
            "format": "tfhub",
            "checkpoint": "{encoder}",
            "spm_model_file": "{spm}",
            "export_dir": "{out}",
        },
        {  # The output cases are the saved_model format's (one writer).
            "tfhub: directory without a model": ({"checkpoint": "{data_dir}"}, "{data_dir}"),
            "tfhub: model of another architecture": (
                {"checkpoint": "{dense_model}"},
                "{dense_model}",
            ),
            "tfhub: Hugging Face model of another architecture": (
                {"checkpoint": "{bert_hf_dir}", "checkpoint_format": "hf"},
                "{bert_hf_dir}",
            ),
            "tfhub: tokenizer of another vocabulary": (
                {"spm_model_file": "{spm_small}"},
                "{spm_small}",
            ),
        },
    ),
    *_rows_of(
        "export",
        {"format": "onnx", "checkpoint": "{encoder}", "export_dir": "{out}"},
        {  # The output cases are the saved_model format's (one atomic writer), but one.
            "onnx: missing file": ({"checkpoint": "{missing}.keras"}, "{missing}.keras"),
            "onnx: empty file": ({"checkpoint": "{empty}"}, "{empty}"),
            "onnx: wrong format (TSV as a source)": ({"checkpoint": "{train_tsv}"}, "{train_tsv}"),
            "onnx: directory without a model": ({"checkpoint": "{data_dir}"}, "{data_dir}"),
            "onnx: model of another architecture": (
                {"checkpoint": "{dense_model}"},
                "{dense_model}",
            ),
            "onnx: Hugging Face model of another architecture": (
                {"checkpoint": "{bert_hf_dir}", "checkpoint_format": "hf"},
                "{bert_hf_dir}",
            ),
            "onnx: unknown quantization": ({"quantizations": "int4"}, "--quantizations"),
            "onnx: output path that is a file": ({"export_dir": "{a_file}"}, "{a_file}"),
        },
    ),
    *_rows_of(  # The other formats of the table read their sources as onnx or convert do.
        "export",
        {"checkpoint": "{encoder}", "export_dir": "{out}"},
        {
            "litert: missing file": (
                {"format": "litert", "checkpoint": "{missing}.keras"},
                "{missing}.keras",
            ),
            "litert: batch size that is not a number": (
                {"format": "litert", "batch_sizes": "1,eight"},
                "--batch_sizes",
            ),
            "keras_hub: missing file": (
                {"format": "keras_hub", "checkpoint": "{missing}.keras"},
                "{missing}.keras",
            ),
        },
    ),
    *_rows_of(
        "convert",
        {"from": "albert_tf", "to": "hf", "input": "{encoder}", "output": "{out}"},
        _with_output(
            "output",
            {
                "missing file": ({"input": "{missing}.keras"}, "{missing}.keras"),
                "wrong format (a .keras file as Hugging Face)": (
                    {"from": "hf", "to": "albert_tf"},
                    "{encoder}",
                ),
                "spm model without control symbols": (
                    {"spm_model_file": "{spm_no_control}"},
                    "{spm_no_control}",
                ),
                "config with unknown sharing mode": (
                    {"from": "hf", "to": "albert_tf", "config": "{bad_sharing}"},
                    "{bad_sharing}",
                ),
                "Hugging Face config.json that is not JSON": (
                    {"from": "hf", "to": "albert_tf", "input": "{hf_not_json}"},
                    "{hf_not_json}/config.json:1:2",  # Line and column.
                ),
            },
        ),
    ),
    *_rows_of(
        "classify",
        {
            "task": "tsv",
            "data_dir": "{data_dir}",
            "text_a_column": "sentence",
            "label_column": "label",
            "init_checkpoint": "{encoder}",
            "spm_model_file": "{spm}",
            "output_dir": "{out}",
            "do_train": "",
            "max_seq_length": "16",
            "train_batch_size": "2",
            "do_eval": "",
        },
        _with_output(
            "output_dir",
            {
                "missing file": ({"train_file": "{missing}.tsv"}, "{missing}.tsv"),
                "empty file": ({"train_file": "{empty}"}, "{empty}"),
                "wrong format (JSON for a TSV)": ({"train_file": "{config}"}, "{config}"),
                "non-UTF-8": ({"train_file": "{latin1}"}, "{latin1}"),
                "row without its label": ({"train_file": "{no_label_tsv}"}, "{no_label_tsv}"),
                "missing dev file (found before training)": (
                    {"dev_file": "{missing}.tsv"},
                    "{missing}.tsv",
                ),
                "--seeds: missing file (found before the first run writes)": (
                    {"seeds": "1,2", "train_file": "{missing}.tsv"},
                    "{missing}.tsv",
                ),
                "--seeds with --seed": ({"seeds": "1,2", "seed": "3"}, "--seeds"),
                "--seeds not integers": ({"seeds": "1,two"}, "--seeds"),
                "spm model without control symbols": (
                    {"spm_model_file": "{spm_no_control}"},
                    "{spm_no_control}",
                ),
                "checkpoint of another shape": (
                    {"init_checkpoint": "{other_encoder}", "albert_config_file": "{config}"},
                    "{other_encoder}",
                ),
                "config with unknown sharing mode": (
                    {"init_checkpoint": None, "albert_config_file": "{bad_sharing}"},
                    "{bad_sharing}",
                ),
            },
        ),
    ),
    *_rows_of(
        "quickstart",
        {"workdir": "{out}"},
        _with_output(
            "workdir",
            {
                "missing file": ({"input_file": "{missing}.txt"}, "{missing}.txt"),
                "empty file": ({"input_file": "{empty}"}, "{empty}"),
                "non-UTF-8": ({"input_file": "{latin1}"}, "{latin1}"),
            },
        ),
    ),
    *_rows_of(
        "data-stats",
        {"input_file": "{records}"},
        {
            "missing file": ({"input_file": "{missing}.tfrecord"}, "{missing}.tfrecord"),
            "truncated TFRecord": ({"input_file": "{truncated}"}, "{truncated}"),
            "spm model without control symbols": (
                {"spm_model_file": "{spm_no_control}"},
                "{spm_no_control}",
            ),
        },
    ),
    *_rows_of(
        "span-qa",
        {
            "train_file": "{squad_json}",
            "predict_file": "{squad_json}",
            "init_checkpoint": "{encoder}",
            "spm_model_file": "{spm}",
            "output_dir": "{out}",
            "do_train": "",
            "do_predict": "",
            "max_seq_length": "32",
            "max_query_length": "8",
            "train_batch_size": "2",
        },
        _with_output(
            "output_dir",
            {
                "missing file": ({"train_file": "{missing}.json"}, "{missing}.json"),
                "empty file": ({"train_file": "{empty}"}, "{empty}"),
                "wrong format (TSV for SQuAD JSON)": ({"train_file": "{train_tsv}"}, "{train_tsv}"),
                "non-UTF-8": ({"train_file": "{latin1}"}, "{latin1}"),
                "missing predict file (found before training)": (
                    {"predict_file": "{missing}.json"},
                    "{missing}.json",
                ),
                "JSON that is not SQuAD": ({"train_file": "{config}"}, "{config}"),
            },
        ),
    ),
    *_rows_of(
        "choice",
        {
            "task": "race",
            "train_file": "{race_dir}",
            "dev_file": "{race_dir}",
            "init_checkpoint": "{encoder}",
            "spm_model_file": "{spm}",
            "output_dir": "{out}",
            "do_train": "",
            "do_eval": "",
            "max_seq_length": "32",
            "max_qa_length": "8",
            "train_batch_size": "2",
        },
        _with_output(
            "output_dir",
            {
                "missing file": ({"train_file": "{missing}.json"}, "{missing}.json"),
                "empty file": ({"train_file": "{empty}"}, "{empty}"),
                "wrong format (TSV for RACE JSON)": ({"train_file": "{train_tsv}"}, "{train_tsv}"),
                "non-UTF-8": ({"train_file": "{latin1}"}, "{latin1}"),
                "generic: empty JSONL": (
                    {"task": "generic", "train_file": "{empty_jsonl}", "dev_file": None},
                    "{empty_jsonl}",
                ),
                "generic: JSON config as JSONL": (
                    {"task": "generic", "train_file": "{config}", "dev_file": None},
                    "{config}",
                ),
                "missing dev file (found before training)": (
                    {"dev_file": "{missing}.json"},
                    "{missing}.json",
                ),
            },
        ),
    ),
    *_rows_of(
        "tag",
        {
            "train_file": "{conll}",
            "dev_file": "{conll}",
            "init_checkpoint": "{encoder}",
            "spm_model_file": "{spm}",
            "output_dir": "{out}",
            "do_train": "",
            "do_eval": "",
            "max_seq_length": "16",
            "train_batch_size": "2",
        },
        _with_output(
            "output_dir",
            {
                "missing file": ({"train_file": "{missing}.conll"}, "{missing}.conll"),
                "empty file": ({"train_file": "{empty}"}, "{empty}"),
                "wrong format (JSON for CoNLL)": (
                    {"train_file": "{config}", "file_format": "conll"},
                    "{config}",
                ),
                "non-UTF-8": ({"train_file": "{latin1}"}, "{latin1}"),
                "missing dev file (found before training)": (
                    {"dev_file": "{missing}.conll"},
                    "{missing}.conll",
                ),
            },
        ),
    ),
    *_rows_of(
        "export-litert",
        {
            "source": "{encoder}",
            "spm_model_file": "{spm}",
            "output_dir": "{out}",
            "seq_length": "16",
            "quantizations": "float32",
            "inputs": "ids",
        },
        _with_output(
            "output_dir",
            {
                "missing file": ({"source": "{missing}.keras"}, "{missing}.keras"),
                "empty file": ({"source": "{empty}"}, "{empty}"),
                "wrong format (TSV as a source)": ({"source": "{train_tsv}"}, "{train_tsv}"),
                "wrong format (JSON for a SentencePiece model)": (
                    {"spm_model_file": "{config}", "inputs": "text"},
                    "{config}",
                ),
                "checkpoint of another shape": (
                    {"source": "{other_encoder}", "albert_config_file": "{config}"},
                    "{other_encoder}",
                ),
            },
        ),
    ),
    *_rows_of(
        "experiment",
        {
            "preset": "sharing",
            "output_dir": "{out}",
            "input_file": "{corpus}",
            "eval_file": "{corpus}",
            "spm_model_file": "{spm}",
            "num_train_steps": "1",
        },
        _with_output(
            "output_dir",
            {
                "missing file": ({"input_file": "{missing}.txt"}, "{missing}.txt"),
                "empty file": ({"eval_file": "{empty}"}, "{empty}"),
                "non-UTF-8": ({"input_file": "{latin1}"}, "{latin1}"),
                "wrong format (JSON for a SentencePiece model)": (
                    {"spm_model_file": "{config}"},
                    "{config}",
                ),
                "spm model without control symbols": (
                    {"spm_model_file": "{spm_no_control}"},
                    "{spm_no_control}",
                ),
            },
        ),
    ),
    *_rows_of(
        "analyze-layers",
        {
            "encoder_files": "{encoder}",
            "input_file": "{records}",
            "max_seq_length": "32",
            "max_predictions_per_seq": "5",
            "num_records": "2",
            "output_dir": "{out}",
        },
        _with_output(
            "output_dir",
            {
                "missing file": ({"encoder_files": "{missing}.keras"}, "{missing}.keras"),
                "missing records": ({"input_file": "{missing}.tfrecord"}, "{missing}.tfrecord"),
                "empty file": ({"input_file": "{empty}"}, "{empty}"),
                "truncated TFRecord": ({"input_file": "{truncated}"}, "{truncated}"),
                "wrong format (TSV for an encoder)": (
                    {"encoder_files": "{train_tsv}"},
                    "{train_tsv}",
                ),
                "records of another sequence length": ({"max_seq_length": "48"}, "{records}"),
            },
        ),
    ),
    *_rows_of(
        "span-qa-baseline",
        {"train_file": "{squad_json}", "predict_file": "{squad_json}"},
        {
            "missing file": ({"train_file": "{missing}.json"}, "{missing}.json"),
            "empty file": ({"train_file": "{empty}"}, "{empty}"),
            "wrong format (TSV for SQuAD JSON)": ({"predict_file": "{train_tsv}"}, "{train_tsv}"),
            "non-UTF-8": ({"train_file": "{latin1}"}, "{latin1}"),
            "JSON that is not SQuAD": ({"predict_file": "{config}"}, "{config}"),
        },
    ),
]


def _write(path, content: bytes | str) -> str:
    mode = "wb" if isinstance(content, bytes) else "w"
    with open(path, mode) as handle:
        handle.write(content)
    return str(path)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, tiny_model_file) -> dict[str, str]:
    """Shared tiny inputs (read-only for the rows), by placeholder name."""
    root = tmp_path_factory.mktemp("inputs")
    documents = SAMPLE_TEXT.read_text(encoding="utf-8").split("\n\n")[:6]
    corpus = _write(root / "corpus.txt", "\n\n".join(documents) + "\n")
    config = AlbertConfig(**TINY_ALBERT)
    config.to_json_file(root / "albert_config.json")
    _write(root / "bad_sharing.json", json.dumps({**TINY_ALBERT, "sharing": "every_other"}))
    encoder = AlbertEncoder(config)
    encoder.save(root / "encoder.keras")
    AlbertEncoder(config.replace(hidden_size=16)).save(root / "other_encoder.keras")
    keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]).save(root / "dense.keras")
    (root / "bert_hf").mkdir()
    _write(root / "bert_hf" / "config.json", json.dumps({"model_type": "bert"}))
    build_pretraining_data(
        BuilderOptions(
            input_file=corpus,
            spm_model_file=tiny_model_file,
            output_dir=str(root / "records"),
            max_seq_length=32,
            max_predictions_per_seq=5,
            dupe_factor=1,
        )
    )
    records = str(root / "records" / "part-00000-of-00001.tfrecord")
    with open(records, "rb") as handle:
        _write(root / "truncated.tfrecord", handle.read()[:30])  # Cut inside the first record.
    data_dir = root / "data"
    data_dir.mkdir()
    rows = [
        f"{text}\t{label}" for label, texts in ((0, _NEGATIVE), (1, _POSITIVE)) for text in texts
    ]
    _write(data_dir / "train.tsv", "\n".join(["sentence\tlabel", *rows]) + "\n")
    _write(data_dir / "dev.tsv", "\n".join(["sentence\tlabel", *rows]) + "\n")
    _write(data_dir / "no_label.tsv", "sentence\tlabel\na fine film\t1\nno label here\n")
    context = "the film was a fine film with great acting"
    squad = {
        "version": "v2.0",
        "data": [
            {
                "title": "film",
                "paragraphs": [
                    {
                        "context": context,
                        "qas": [
                            {
                                "id": "q1",
                                "question": "what was the film?",
                                "answers": [{"text": "a fine film", "answer_start": 13}],
                                "is_impossible": False,
                            }
                        ],
                    }
                ],
            }
        ],
    }
    _write(root / "squad.json", json.dumps(squad))
    race_dir = root / "race"
    race_dir.mkdir()
    race = {
        "id": "1.txt",
        "article": context,
        "questions": ["what was the film?", "how was the acting?"],
        "options": [["fine", "bad", "long", "dull"], ["great", "bad", "poor", "none"]],
        "answers": ["A", "A"],
    }
    _write(race_dir / "1.json", json.dumps(race))
    conll = "\n\n".join(
        "\n".join(f"{word}\t{tag}" for word, tag in sentence)
        for sentence in (
            [("the", "O"), ("film", "B-MISC"), ("was", "O"), ("fine", "O")],
            [("great", "O"), ("acting", "B-MISC"), ("here", "O")],
        )
    )
    _write(root / "train.conll", conll + "\n")
    hf_not_json = root / "hf_not_json"
    hf_not_json.mkdir()
    _write(hf_not_json / "config.json", "{model_type: albert}\n")
    return {
        "corpus": corpus,
        "spm": tiny_model_file,
        "spm_no_control": train_sentencepiece(
            [str(SAMPLE_TEXT)], str(root / "no_control"), vocab_size=300, control_symbols=()
        ),
        "config": str(root / "albert_config.json"),
        "bad_sharing": str(root / "bad_sharing.json"),
        "encoder": str(root / "encoder.keras"),
        "other_encoder": str(root / "other_encoder.keras"),
        "dense_model": str(root / "dense.keras"),
        "bert_hf_dir": str(root / "bert_hf"),
        "spm_small": train_sentencepiece(
            [str(SAMPLE_TEXT)], str(root / "small_spm"), vocab_size=200
        ),
        "records": records,
        "truncated": str(root / "truncated.tfrecord"),
        "data_dir": str(data_dir),
        "train_tsv": str(data_dir / "train.tsv"),
        "no_label_tsv": str(data_dir / "no_label.tsv"),
        "empty": _write(root / "empty.txt", ""),
        "latin1": _write(
            root / "latin1.txt", "caf\u00e9 cr\u00e8me\tna\u00efve\n".encode("latin-1")
        ),
        "a_file": _write(root / "a_file.txt", "not a directory\n"),
        "missing": str(root / "missing"),
        "squad_json": str(root / "squad.json"),
        "race_dir": str(race_dir),
        "conll": str(root / "train.conll"),
        "hf_not_json": str(hf_not_json),
        "empty_jsonl": _write(root / "empty.jsonl", ""),
    }


def _snapshot(root) -> dict[str, tuple[int, int]]:
    """Every path under `root` (hidden ones included) with its size and mtime."""
    found = {}
    for directory, names, files in os.walk(root):
        for name in names + files:
            path = os.path.join(directory, name)
            stat = os.lstat(path)
            found[os.path.relpath(path, root)] = (stat.st_size, stat.st_mtime_ns)
    return found


@pytest.fixture(scope="module")
def matrix(request, tmp_path_factory, inputs) -> dict[str, dict]:
    """Runs the selected rows in one driver subprocess; returns results by row id."""
    selected = {
        item.callspec.params["row"].id
        for item in request.session.items
        if getattr(item, "module", None) is request.module
        and "row" in getattr(getattr(item, "callspec", None), "params", {})
    }
    rows = [row for row in ROWS if row.id in selected]
    root = tmp_path_factory.mktemp("matrix")
    cases, placeholders = [], {}
    for index, row in enumerate(rows):
        case_dir = root / f"case{index:03d}"
        case_dir.mkdir()
        values = {**inputs, "out": str(case_dir / "out")}
        placeholders[row.id] = (values, str(case_dir))
        cases.append(
            {
                "id": row.id,
                "command": row.command,
                "argv": [arg.format(**values) for arg in row.args],
                "cwd": str(case_dir),
            }
        )
    (root / "cases.json").write_text(json.dumps(cases))
    watched = [os.path.dirname(inputs["corpus"]), os.path.dirname(inputs["spm"])]
    before = {path: _snapshot(path) for path in watched}
    commands.run(
        [
            sys.executable,
            str(REPO_ROOT / "tests" / "entry_point_driver.py"),
            "cases.json",
            "out.json",
        ],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        check=True,
        timeout=900,
        preloaded=True,  # A child of the command server: TensorFlow is loaded already.
    )
    results = {r["id"]: r for r in json.loads((root / "out.json").read_text())}
    inputs_unchanged = all(_snapshot(path) == before[path] for path in watched)
    return {
        row.id: {
            **results[row.id],
            "values": placeholders[row.id][0],
            "case_dir_after": os.listdir(placeholders[row.id][1]),
            "inputs_unchanged": inputs_unchanged,
        }
        for row in rows
    }


def test_matrix_size():
    commands = {row.command for row in ROWS}
    print(f"bad-input matrix: {len(commands)} commands, {len(ROWS)} rows")
    # distill defines its flags from --teacher before parsing, which this one-process driver
    # cannot replay per row: tests/finetune/test_distill_inputs.py runs its bad input.
    assert commands | {"distill"} == set(COMMANDS) and len(ROWS) >= 100
    assert len({row.id for row in ROWS}) == len(ROWS)


@pytest.mark.slow  # One subprocess runs every row (TensorFlow, a model, records).
@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_bad_input(row: Row, matrix):
    result = matrix[row.id]
    stderr = result["stderr"]
    assert result["exit_code"] == 2, f"{row.args}\n{stderr}"
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert row.offending.format(**result["values"]) in lines[0], stderr
    assert result["case_dir_after"] == [], result["case_dir_after"]  # No output, lock or temp.
    assert result["inputs_unchanged"]


@pytest.mark.slow  # A subprocess with TensorFlow.
def test_real_command_line_prints_one_line(inputs, tmp_path):
    """Outside the driver too: TensorFlow's start-up noise stays out of stderr."""
    flags = [
        f"--checkpoint={inputs['missing']}.keras",
        f"--spm_model_file={inputs['spm']}",
        f"--export_dir={tmp_path / 'out'}",
    ]
    result = subprocess.run(
        command_line("export", *flags),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        timeout=300,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert inputs["missing"] in result.stderr and os.listdir(tmp_path) == []
