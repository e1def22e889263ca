"""`albert-tf distill`'s flags and `main`: the teacher's family's flags plus `DistillConfig`'s.

The student is a run of the teacher's family, so the command takes that family's flags
(`albert_tf.finetune.flags`), found from `--teacher` on the command line before the flags are
defined. Each setting of the student's run is, in order of precedence: its flag when given,
the teacher's `finetune_config.json` (its data files, lengths and recipe), the family's
default. The student always trains, starts from no pretrained encoder and keeps the
teacher's tokenizer.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Sequence

from absl import flags, logging

from albert_tf.config_flags import config_from_flags, define_flags
from albert_tf.errors import UserError
from albert_tf.finetune.distillation.distill_config import DistillConfig
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.finetune.flags import define_finetune_flags
from albert_tf.runtime.runtime import RuntimeOptions

FLAGS = flags.FLAGS
# What a student never takes from its teacher's settings: it starts from the teacher's model
# and tokenizer, and it trains.
_STUDENT_SETTINGS = dict(
    init_checkpoint="", albert_config_file="", spm_model_file="", do_train=True
)


def distill_main(argv: Sequence[str] = sys.argv) -> Callable[[list[str]], None]:
    """Defines the flags (the family's of the `--teacher` in `argv`); returns the absl `main`."""
    define_flags(DistillConfig)
    teacher = _flag_value(argv, "teacher")
    family, problem = None, None
    try:
        family = _teacher_family(teacher) if teacher else None
    except UserError as error:  # Reported by `main`, as the command's one error line.
        problem = error
    if family is not None:
        define_finetune_flags(family.config_class)
    else:  # `--help` without a teacher, or a missing --teacher (DistillConfig says so).
        flags.DEFINE_string("output_dir", None, "Where the student's run goes.")
        define_flags(RuntimeOptions)

    def main(argv: list[str]) -> None:
        del argv
        distill_config = config_from_flags(DistillConfig)  # Says when --teacher is missing.
        if problem is not None:
            raise problem
        from albert_tf.finetune.distillation.distillation import Distillation  # Loads TensorFlow.
        from albert_tf.finetune.driver import run_finetuning

        config = student_run_config(family, distill_config.teacher)
        runtime = config_from_flags(RuntimeOptions).resolve()
        distillation = Distillation(distill_config)
        results = run_finetuning(config, FLAGS.output_dir, runtime, distillation)
        logging.info("Results: %s", results)
        print(json.dumps(results, indent=2, default=str))

    return main


def _teacher_family(teacher_dir: str):
    """The teacher's family class, the one its `task.json` names in the families' table; imports
    it (TensorFlow) only with --teacher, so `albert-tf distill --help` alone answers at once."""
    from albert_tf.finetune.distillation.distillation import teacher_family  # Loads TensorFlow.

    return teacher_family(teacher_dir)


def student_run_config(family, teacher_dir: str) -> FinetuneConfig:
    """The student run's config: given flags, else the teacher's settings, else defaults."""
    from albert_tf.finetune.distillation.distillation import (  # Loads TensorFlow.
        teacher_config_values,
    )

    config_class = family.config_class
    teacher = teacher_config_values(teacher_dir)
    inherited = {}
    for field in dataclasses.fields(config_class):
        name = field.name
        if name in teacher and not FLAGS[name].present:
            value = teacher[name]
            inherited[name] = tuple(value) if isinstance(value, list) else value
    return config_from_flags(config_class, FLAGS, **{**inherited, **_STUDENT_SETTINGS})


def _flag_value(argv: Sequence[str], name: str) -> str:
    """`--name=VALUE` or `--name VALUE` of `argv` ("" when absent), read before parsing."""
    for index, arg in enumerate(argv):
        if arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
        if arg == f"--{name}" and index + 1 < len(argv):
            return argv[index + 1]
    return ""
