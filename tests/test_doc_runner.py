"""The docs test's harness fails where a doc is broken (tests/doc_runner.py): a command that
exits non-zero, a path no earlier block wrote; it skips marked blocks and says why."""

from __future__ import annotations

import pathlib

from tests.doc_blocks import blocks
from tests.doc_overrides import with_size_flags
from tests.doc_runner import PIP_NOT_RUN, run_doc

_MARKER = "_Not run by the docs test: needs a GPU and two hours._"


def _doc(tmp_path: pathlib.Path, *parts: str) -> pathlib.Path:
    path = tmp_path / "guide.md"
    path.write_text("# A guide\n\n" + "\n\n".join(parts) + "\n", encoding="utf-8")
    return path


def _bash(text: str) -> str:
    return f"```bash\n{text}\n```"


def _marked(text: str) -> str:
    return f"{_MARKER}\n{_bash(text)}"


def _run(tmp_path: pathlib.Path, doc: pathlib.Path):
    data = tmp_path / "data"
    data.mkdir()
    return run_doc(blocks(doc), tmp_path / "run", data)


def test_blocks_are_the_bash_fences_with_their_lines_and_markers(tmp_path):
    doc = _doc(tmp_path, _bash("echo one"), "```python\nprint(2)\n```", _marked("exit 1"))
    found = blocks(doc)
    assert [(block.line, block.text, block.skip_reason) for block in found] == [
        (3, "echo one\n", None),
        (12, "exit 1\n", "needs a GPU and two hours"),
    ]


def test_a_failing_command_fails_the_doc_at_its_line(tmp_path):
    doc = _doc(
        tmp_path,
        _bash("mkdir -p out && echo written > out/a.txt"),
        _marked("exit 1"),
        _bash("cat out/a.txt\nls no_such_file"),
        _bash("echo never"),
    )
    result = _run(tmp_path, doc)
    assert result.failure is not None
    assert result.failure.startswith(f"{doc}:14 (block at line 12): exit status 2")
    assert "command: ls no_such_file" in result.failure
    assert "written" in result.failure  # The output's tail: the block's earlier line.
    report = result.report()
    assert f"{doc}:8: not run: needs a GPU and two hours" in report
    assert len(result.runs) == 3  # The last block did not run.


def test_a_path_no_earlier_block_wrote_fails_before_the_command_runs(tmp_path):
    doc = _doc(
        tmp_path,
        _bash("mkdir records && touch spm.model"),
        _bash("ls\nalbert-tf data-stats --input_file='records/*' --spm_model_file=spm.model"),
    )
    result = _run(tmp_path, doc)
    assert result.failure.startswith(
        f"{doc}:9: `albert-tf data-stats` reads records/* (--input_file), which no earlier "
        f"block wrote\n  {doc}:3 wrote records, spm.model"
    )
    assert result.runs[1].commands == []  # Refused before it ran.


def test_albert_tf_lines_run_served_with_size_flags(tmp_path):
    doc = _doc(
        tmp_path,
        _bash(
            "albert-tf tokenizer --input_files=data/sample.txt --model_prefix=spm \\\n"
            "    --vocab_size=300\nls spm.model"
        ),
        _bash("albert-tf data --input_file=data/sample.txt --output_dir=records --no_such_flag"),
    )
    result = _run(tmp_path, doc)
    assert result.runs[0].commands == [
        "albert-tf tokenizer --input_files=data/sample.txt --model_prefix=spm --vocab_size=300"
    ]
    assert (
        result.runs[1]
        .commands[0]
        .endswith("--no_such_flag --dupe_factor=1 --max_seq_length=64 --max_predictions_per_seq=10")
    )
    assert f"{doc}:10 (block at line 9): exit status 2" in result.failure
    assert "command: albert-tf data --input_file=data/sample.txt" in result.failure


def test_pip_lines_are_reported_not_run(tmp_path):
    doc = _doc(tmp_path, _bash("pip install 'no-such-package-albert-tf[x]'\necho after"))
    result = _run(tmp_path, doc)
    assert result.failure is None
    assert result.runs[0].commands == [
        "pip install 'no-such-package-albert-tf[x]'  # " + PIP_NOT_RUN
    ]


def test_list_flags_keep_their_first_item():
    flags = ["--quantizations=float32,int8", "--inputs=text", "--seq_length=128"]
    assert with_size_flags("export-litert", flags) == [
        *flags,
        "--seq_length=64",
        "--quantizations=float32",
    ]


def test_a_cap_lowers_a_zero_that_means_everything():
    script = "benchmarks/classic_baselines.py"
    assert with_size_flags(script, ["--max_train_examples=0"])[-1] == "--max_train_examples=200"
    assert with_size_flags(script, ["--max_train_examples=50"]) == ["--max_train_examples=50"]
