"""The fine-tuning scripts' flags and `main`, generated from a task family's config class.

Every field of the family's config (a `FinetuneConfig` subclass) and of `RuntimeOptions` (the
speed-only forms) becomes a flag with its type, default and help text
(`albert_tf.config_flags`); `--encoder` is another name of
`--init_checkpoint`, and `--output_dir` is required. `--seeds=1,2,3` runs the command once per
seed into `OUTPUT_DIR/seed_<seed>` and writes `OUTPUT_DIR/seeds.json`, each run's results with
the mean and standard deviation of each figure (`albert_tf.finetune.seeds`). The flags come from
the family's config class alone (`albert_tf.finetune.families.family_config`), which imports no
TensorFlow: `--help` answers at once; the family (its model, data and TensorFlow) is imported
when `main` runs. A command is then a few lines:

Illustration (not run; albert_tf/commands/classify.py, the `albert-tf classify` command):
    from albert_tf import cli
    from albert_tf.finetune.flags import finetune_main

    main = finetune_main("classification")

    def run() -> None:
        cli.run(main, loads_tensorflow=True)
"""

from __future__ import annotations

import json
from collections.abc import Callable

from absl import flags, logging

from albert_tf.config_flags import config_from_flags, define_flags
from albert_tf.errors import UserError
from albert_tf.finetune.families import family_config
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.runtime.runtime import RuntimeOptions

FLAGS = flags.FLAGS


def define_finetune_flags(config_class: type[FinetuneConfig]) -> None:
    """Defines `--output_dir`, `--encoder` and a flag per field of `config_class` and of
    `RuntimeOptions` (the speed-only forms)."""
    define_flags(config_class)
    define_flags(RuntimeOptions)
    flags.DEFINE_string("encoder", "", "Alias of --init_checkpoint.")
    flags.DEFINE_string("output_dir", None, "Where checkpoints, logs, model and results go.")
    flags.DEFINE_list(
        "seeds",
        [],
        "One run per seed (instead of --seed) in OUTPUT_DIR/seed_<seed>; OUTPUT_DIR/seeds.json "
        "holds every run's results and the mean and standard deviation of each figure.",
    )
    flags.mark_flags_as_required(["output_dir"])


def finetune_config_from_flags(
    config_class: type[FinetuneConfig], values: flags.FlagValues = FLAGS
) -> FinetuneConfig:
    """The `config_class` the parsed flags describe."""
    if values.encoder and values.init_checkpoint and values.encoder != values.init_checkpoint:
        raise UserError(
            "--encoder and --init_checkpoint differ", where="--encoder", fix="pass one of them"
        )
    init_checkpoint = values.init_checkpoint or values.encoder
    return config_from_flags(config_class, values, init_checkpoint=init_checkpoint)


def seeds_from_flags(values: flags.FlagValues = FLAGS) -> list[int]:
    """The seeds of `--seeds` (empty: one run with `--seed`); passing both is an error."""
    from albert_tf.finetune.seeds import parse_seeds  # With the driver: TensorFlow.

    seeds = parse_seeds(values.seeds)
    if seeds and values["seed"].present:
        raise UserError("--seed and --seeds both given", where="--seeds", fix="pass one of them")
    return seeds


def finetune_main(family: str) -> Callable[[list[str]], None]:
    """Defines the flags of `family`'s config class (a name of
    `albert_tf.finetune.families.FAMILIES`); returns the command's absl `main`, which runs the
    driver (it imports the family) and prints the results."""
    config_class = family_config(family)
    define_finetune_flags(config_class)

    def main(argv: list[str]) -> None:
        del argv
        seeds = seeds_from_flags()
        from albert_tf.finetune.driver import run_finetuning  # Loads TensorFlow.
        from albert_tf.finetune.seeds import run_seeds, summary_table

        config = finetune_config_from_flags(config_class)
        runtime = config_from_flags(RuntimeOptions).resolve()
        if seeds:
            summary = run_seeds(config, FLAGS.output_dir, seeds, runtime)
            print(summary_table(summary))
            print(json.dumps(summary, indent=2, default=str))
            return
        results = run_finetuning(config, FLAGS.output_dir, runtime)
        logging.info("Results: %s", results)
        print(json.dumps(results, indent=2, default=str))

    return main
