"""`albert-tf`: one subcommand per stage, its help, its errors, and the old script names."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from albert_tf import __version__
from albert_tf.commands.dispatch import ALIASES, COMMANDS, module_name, summary
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT

COMMANDS_DIR = REPO_ROOT / "albert_tf" / "commands"
_NOT_COMMANDS = {"__init__", "__main__", "dispatch"}


def _run(
    argv: list[str], cwd: str | os.PathLike | None = None, preloaded: bool = False
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return commands.run(argv, cwd=cwd, env=env, timeout=300, preloaded=preloaded)


def test_every_module_of_the_package_is_a_command_with_a_one_line_summary():
    modules = {path.stem for path in COMMANDS_DIR.glob("*.py")} - _NOT_COMMANDS
    assert {module_name(c).rsplit(".", 1)[1] for c in COMMANDS} == modules
    for command in COMMANDS:
        line = summary(command)
        assert line.endswith(".") and 20 < len(line) <= 86, (command, line)


def test_help_lists_every_command_and_nothing_imports_tensorflow(tmp_path):
    code = (
        "import sys; from albert_tf.commands import main; status = main(['albert-tf', '--help']);"
        "assert 'tensorflow' not in sys.modules, 'tensorflow imported'; sys.exit(status)"
    )
    result = _run([sys.executable, "-c", code], cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "usage: albert-tf COMMAND [flags]"
    width = max(map(len, (*COMMANDS, *ALIASES)))
    for command in COMMANDS:
        assert f"  {command.ljust(width)}  {summary(command)}" in lines
    for alias, command in ALIASES.items():
        assert f"  {alias.ljust(width)}  same as {command}" in lines


@pytest.mark.parametrize(
    "args, fragment",
    [(["pretrian"], "unknown command 'pretrian'"), (["--pretrain"], "unknown command")],
)
def test_an_unknown_command_is_one_error_line(args, fragment, tmp_path):
    result = _run(command_line(*args), cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert fragment in result.stderr and "see albert-tf --help" in result.stderr


def test_no_command_prints_the_usage_and_exits_2(tmp_path):
    result = _run([sys.executable, "-m", "albert_tf.commands"], cwd=tmp_path)
    assert result.returncode == 2 and "commands:" in result.stderr


# `albert-tf ARGS...` in a fresh interpreter, then the flags albert_tf defined for the command
# and whether TensorFlow was imported.
_PROBE = """
import sys
from absl import flags
from albert_tf.commands.dispatch import main
try:
    status = main(["albert-tf", *sys.argv[1:]])
except SystemExit as exit_:
    status = exit_.code
ours = [
    flag.name
    for module, defined in flags.FLAGS.flags_by_module_dict().items()
    if module.startswith(("albert-tf ", "albert_tf.")) and module != "albert_tf.cli"
    for flag in defined
]
print("flags:", ",".join(sorted(ours)))
print("tensorflow imported:", "tensorflow" in sys.modules)
sys.exit(status)
"""


def _probe(*args: str, cwd: str | os.PathLike) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)  # As a user runs it: the quiet start-up on.
    return subprocess.Popen(
        [sys.executable, "-c", _PROBE, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _help_and_flags(process: subprocess.Popen) -> tuple[str, list[str]]:
    """The help a probe printed, and the flags it should list; checks status 0, no TF."""
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, (process.args[3:], stderr)
    text, flags_line, tensorflow_line = stdout.rstrip("\n").rsplit("\n", 2)
    assert tensorflow_line == "tensorflow imported: False", process.args[3:]
    return text, flags_line.removeprefix("flags: ").split(",")


def test_every_command_answers_help_at_once_without_tensorflow(tmp_path):
    # A fresh interpreter per command (absl's flags are process-wide), all at once.
    started = {command: _probe(command, "--help", cwd=tmp_path) for command in COMMANDS}
    for command, process in started.items():
        text, names = _help_and_flags(process)
        assert text.startswith(summary(command)) and names, command
        for name in names:
            assert f"  --{name}:" in text or f"  --[no]{name}:" in text, (command, name)


def test_an_alias_runs_the_command_it_names(tmp_path):
    assert set(ALIASES.values()) <= set(COMMANDS) and not set(ALIASES) & set(COMMANDS)
    started = {alias: _probe(alias, "--help", cwd=tmp_path) for alias in ALIASES}
    for alias, process in started.items():
        text, names = _help_and_flags(process)
        assert text.startswith(summary(ALIASES[alias])) and names, alias


def test_every_help_flag_exits_0_and_the_version_is_printed(tmp_path):
    for flag in ("-h", "--helpshort", "--helpfull"):
        text, names = _help_and_flags(_probe("tokenizer", flag, cwd=tmp_path))
        assert all(f"  --{name}:" in text for name in ("input_files", "model_prefix")), flag
    stdout, _ = (version := _probe("--version", cwd=tmp_path)).communicate(timeout=60)
    assert version.returncode == 0 and stdout.startswith(f"albert-tf {__version__}\n")


@pytest.mark.slow  # Loads TensorFlow in a subprocess (~7 s).
def test_command_help_shows_its_docstring_and_its_generated_flags(tmp_path):
    result = _run(command_line("classify", "--help"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(summary("classify")) and "albert-tf classify --task=rte" in out
    # The module's own flags and those generated from ClassificationConfig and RuntimeOptions.
    for flag in ("--output_dir", "--encoder", "--task", "--learning_rate", "--fused_kernels"):
        assert f"  {flag}:" in out, flag
    assert "I0000" not in result.stdout + result.stderr  # The quiet start-up held.


@pytest.mark.slow  # Loads TensorFlow in a subprocess (~7 s).
def test_data_help_is_absl_s_not_beam_s(tmp_path):
    # `data` hands the flags it does not define to Beam; absl's help flags stay its own.
    result = _run(command_line("data", "--help"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(summary("data")) and "  --input_file:" in result.stdout


@pytest.mark.slow  # Starts the command server (TensorFlow) where no fast test does.
def test_an_old_script_name_runs_the_command(tmp_path):
    script = REPO_ROOT / "scripts" / "run_pretraining.py"
    argv = [sys.executable, str(script), "--input_file=r/*.tfrecord", "--output_dir=o"]
    # Forked from the command server (TensorFlow loaded): the wrapper's start-up is the
    # command's, whose quiet TensorFlow start is tests/test_bad_input_matrix.py's.
    result = _run(argv, cwd=tmp_path, preloaded=True)
    assert result.returncode == 2 and result.stderr.startswith("error: albert_config_file")
    assert os.listdir(tmp_path) == []


def test_every_old_script_name_is_a_wrapper_of_a_command():
    wrapped = set()
    for path in (REPO_ROOT / "scripts").glob("*.py"):
        calls = [
            node
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "run_command"
        ]
        assert len(calls) == 1, path
        wrapped.add(calls[0].args[0].value)
    assert wrapped == set(COMMANDS)


def test_the_packaged_sample_corpus_is_a_link_to_data_sample_txt():
    # One copy in the repository; the build copies the linked file into the wheel.
    link = COMMANDS_DIR / "sample.txt"
    assert link.is_symlink() and link.resolve() == (REPO_ROOT / "data" / "sample.txt").resolve()


@pytest.mark.slow  # Loads TensorFlow in a subprocess (~7 s).
def test_a_bad_runtime_setting_is_one_error_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "ALBERT_TF_FUSED_KERNELS": "maybe"}
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    argv = command_line("pretrain", "--input_file=nothing/*", f"--output_dir={tmp_path / 'out'}")
    result = commands.run(argv, cwd=tmp_path, env=env, timeout=300)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: ALBERT_TF_FUSED_KERNELS='maybe', set it to auto, on (1) or off (0)"
    ]
    assert not (tmp_path / "out").exists()
