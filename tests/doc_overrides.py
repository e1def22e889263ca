"""The size flags the docs test appends to the docs' `albert-tf` command lines (and benchmark
scripts), and the paths those command lines read.

The docs' commands train for minutes to days; the docs test (tests/test_docs_commands.py) runs
each as written, on tiny slices of the data (tests/doc_data.py), with the flags below appended
(absl keeps the last value of a flag): fewer steps, epochs and examples, shorter sequences,
tiny presets. A cap keeps the doc's value where it is smaller (`min(doc's value or the
default, cap)`), so that commands that must agree (records and the pretraining that reads
them) still agree; a preset `--albert_config_file` becomes the tiny preset. `SIZE_FLAGS` is
the table; every command line shows, as run, in the test's report. `ENVIRONMENT` turns off a
speed-only form that tiny runs pay for and never use.
"""

from __future__ import annotations

import dataclasses

from albert_tf.config import PRESETS


@dataclasses.dataclass(frozen=True)
class Cap:
    """At most `limit`: the doc's value where smaller, else `limit`; where the doc does not
    pass the flag, `limit` too (`if_absent`) or the default."""

    limit: int
    if_absent: bool = True
    zero_is_all: bool = False  # The flag's 0 means "no limit", which the cap lowers too.


@dataclasses.dataclass(frozen=True)
class FirstItem:
    """The first item of a comma-separated list the doc passes: one of each kind of output
    (a conversion per item costs seconds), not every one."""


TINY_PRESET = "albert_tiny"
_FINETUNE = {
    "num_train_epochs": Cap(1),
    "max_train_examples": Cap(32),
    "train_batch_size": Cap(16),
    "eval_batch_size": Cap(32),
    "max_seq_length": Cap(64),
    "jit_compile": False,
}
# Per `albert-tf` command or script: flag -> Cap, FirstItem, a bool (`--flag` / `--noflag`
# where the doc sets the flag; the default is left), or TINY_PRESET (a preset name given to the
# flag becomes the tiny preset; a config file is kept).
SIZE_FLAGS: dict[str, dict[str, Cap | bool | str]] = {
    "data": {"dupe_factor": Cap(1), "max_seq_length": Cap(64), "max_predictions_per_seq": Cap(10)},
    "pretrain": {
        "num_train_steps": Cap(2),
        "train_batch_size": Cap(8),
        "gradient_accumulation_steps": Cap(1),
        "num_warmup_steps": Cap(1),
        "save_checkpoints_steps": Cap(2),
        "max_eval_steps": Cap(2),
        "eval_batch_size": Cap(8),
        "log_every_steps": Cap(1),
        "shuffle_buffer_size": Cap(100),
        "new_rows_only_steps": Cap(1, if_absent=False),  # Needs --new_rows_from.
        "max_seq_length": Cap(64),
        "max_predictions_per_seq": Cap(10),
        "jit_compile": False,
        "albert_config_file": TINY_PRESET,
    },
    "classify": _FINETUNE,
    "span-qa": {
        **_FINETUNE,
        # Questions, each of several windows: 64 of SQuAD's are 855 windows, 53 steps.
        "max_train_examples": Cap(8),
        "doc_stride": Cap(32),
        "max_query_length": Cap(16),
    },
    "choice": {**_FINETUNE, "max_qa_length": Cap(32)},
    "tag": _FINETUNE,
    "experiment": {
        "num_train_steps": Cap(2),
        "downstream_epochs": Cap(1),
        "downstream_max_train_examples": Cap(64),
    },
    "analyze-layers": {"num_records": Cap(16)},
    "export": {"quantizations": FirstItem(), "inputs": FirstItem()},  # --format=litert, onnx
    "export-litert": {"seq_length": Cap(64), "quantizations": FirstItem(), "inputs": FirstItem()},
    "quickstart": {"num_train_steps": Cap(2), "dupe_factor": Cap(1)},
    # Python scripts, by their path from the repository root: their measuring loops.
    "benchmarks/featurizer_graphs.py": {"calls": Cap(10), "repeats": Cap(1)},
    "benchmarks/bench_span_qa.py": {"rounds": Cap(1)},
    "benchmarks/classic_baselines.py": {"max_train_examples": Cap(200, zero_is_all=True)},
}

# Set in every block's environment. The fused kernels (albert_tf/runtime/fused_kernels.py) pay an
# XLA compilation per shape that a run of a few steps never earns back (3 CPU seconds of a
# 15-second fine-tuning); they change no output (tests/runtime/test_fused_kernels.py).
ENVIRONMENT = {"ALBERT_TF_FUSED_KERNELS": "off"}

# Flags whose values are paths a command reads (comma-separated where the flag takes several).
INPUT_FLAGS = (
    "input_file",
    "input_files",
    "eval_file",
    "general_input_file",
    "general_eval_file",
    "general_files",
    "spm_model_file",
    "vocab_file",
    "albert_config_file",
    "init_checkpoint",
    "checkpoint",
    "source",
    "extend",
    "input",
    "config",
    "grow_vocabulary",
    "data_dir",
    "downstream_data_dir",
    "encoder_files",
    "train_file",
    "dev_file",
    "test_file",
    "predict_file",
)
# Under --data_dir when named without a directory (FinetuneConfig.data_path).
_IN_DATA_DIR = ("train_file", "dev_file", "test_file")


def _flag_values(flags: list[str]) -> dict[str, str]:
    """The `--name=value` flags of a command line by name (the last one wins, as in absl)."""
    values = {}
    for flag in flags:
        if flag.startswith("--") and "=" in flag:
            name, value = flag[2:].split("=", 1)
            values[name] = value
    return values


def with_size_flags(program: str, flags: list[str]) -> list[str]:
    """`flags` with the size flags of `program` (an `albert-tf` command or a script's path)
    that change something appended (a cap over the doc's value or the default, a bool the doc
    sets otherwise, a preset)."""
    given = _flag_values(flags)
    appended = []
    for name, rule in SIZE_FLAGS.get(program, {}).items():
        if isinstance(rule, bool):
            if f"--{name}" in flags or f"--no{name}" in flags or name in given:
                appended.append(f"--{name}" if rule else f"--no{name}")
        elif isinstance(rule, FirstItem):
            if "," in given.get(name, ""):
                appended.append(f"--{name}={given[name].split(',')[0]}")
        elif isinstance(rule, Cap):
            if name not in given:
                over = rule.if_absent
            else:
                value = float(given[name])
                over = value > rule.limit or (rule.zero_is_all and value == 0)
            if over:
                appended.append(f"--{name}={rule.limit}")
        elif given.get(name) in PRESETS and given[name] != rule:
            appended.append(f"--{name}={rule}")
    return [*flags, *appended]


def input_paths(command: str, flags: list[str]) -> list[tuple[str, str]]:
    """(flag, path) of each local path `command` reads, relative ones as written (a train,
    dev or test file without a directory under --data_dir, as the commands read it); presets
    and URLs left out."""
    given = _flag_values(flags)
    found = []
    for name in INPUT_FLAGS:
        for path in filter(None, given.get(name, "").split(",")):
            if path in PRESETS or "://" in path:
                continue
            if name in _IN_DATA_DIR and "data_dir" in given and "/" not in path:
                path = f"{given['data_dir']}/{path}"
            found.append((f"--{name}", path))
    return found
