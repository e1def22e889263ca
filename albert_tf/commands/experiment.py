r"""Runs one of the paper's ablations and writes its tables and plots.

See albert_tf.experiments.

Examples:
    # The sentence-objective ablation (paper Table 5) on WikiText-2, CPU scale (~10 min):
    albert-tf experiment --preset=sentence_objective \
        --input_file=wikitext-2-raw/train.txt --eval_file=wikitext-2-raw/valid.txt \
        --input_format=wikitext --spm_model_file=spm8k.model --output_dir=/tmp/exp_sop

    # Whole-word masking on jieba's words vs characters, Chinese text (docs/chinese.md):
    albert-tf experiment --preset=chinese_masking --input_file=zh/train.txt \
        --eval_file=zh/eval.txt --spm_model_file=zh8k.model --output_dir=/tmp/exp_zh

    # Parameter counts of the paper's Tables 1 and 2 (nothing trained):
    albert-tf experiment --preset=model_size --output_dir=/tmp/exp_sizes

Rerunning a command skips finished cells and resumes an interrupted one.
"""

from __future__ import annotations

from absl import flags, logging

from albert_tf import cli
from albert_tf.config_flags import config_from_flags, define_flags
from albert_tf.data.documents import INPUT_FORMATS
from albert_tf.errors import UserError
from albert_tf.experiments.presets import PRESETS
from albert_tf.experiments.records import ExperimentInputs
from albert_tf.experiments.scale import SCALES
from albert_tf.runtime.runtime import RuntimeOptions

FLAGS = flags.FLAGS
flags.DEFINE_enum("preset", None, list(PRESETS), "The ablation to run.")
flags.DEFINE_string("output_dir", None, "Experiment directory (rerun to resume).")
flags.DEFINE_string("input_file", "", "Training text (documents).")
flags.DEFINE_string("eval_file", "", "Held-out text for the eval and probe records.")
flags.DEFINE_enum("input_format", "text", list(INPUT_FORMATS), "Format of both texts.")
flags.DEFINE_string("spm_model_file", "", "SentencePiece model of the texts.")
flags.DEFINE_bool("do_lower_case", True, "Lowercase (must match the tokenizer).")
flags.DEFINE_enum("scale", "cpu", list(SCALES), "Model shape and budget of every cell.")
flags.DEFINE_integer("num_train_steps", None, "Override the scale's steps per cell.")
flags.DEFINE_integer("seed", None, "Override the scale's seed (records and training).")
flags.DEFINE_integer("parallelism", 1, "Processes of the data builder.")
flags.DEFINE_list("cells", [], "Run only these cells of the preset (default: all).")
flags.DEFINE_string("downstream_task", "", "Also fine-tune every cell on this GLUE task.")
flags.DEFINE_string("downstream_data_dir", "", "The downstream task's data directory.")
flags.DEFINE_integer("downstream_max_train_examples", 2000, "Downstream training examples.")
flags.DEFINE_float("downstream_epochs", 2.0, "Downstream epochs.")
flags.DEFINE_float("downstream_learning_rate", 1e-4, "Downstream learning rate.")
define_flags(RuntimeOptions)  # The speed-only forms the cells train with.
flags.mark_flags_as_required(["preset", "output_dir"])


def main(argv: list[str]) -> None:
    del argv
    from albert_tf.experiments.downstream import DownstreamOptions  # Loads TensorFlow.
    from albert_tf.experiments.runner import run_experiment

    scale = SCALES[FLAGS.scale]
    if FLAGS.num_train_steps is not None:
        if FLAGS.num_train_steps < 1:
            raise UserError("--num_train_steps must be >= 1", where="--num_train_steps")
        scale = scale.replace(num_train_steps=FLAGS.num_train_steps)
    if FLAGS.seed is not None:
        scale = scale.replace(seed=FLAGS.seed)
    inputs = None
    if FLAGS.input_file or FLAGS.eval_file or FLAGS.spm_model_file:
        missing = [
            name
            for name in ("input_file", "eval_file", "spm_model_file")
            if not getattr(FLAGS, name)
        ]
        if missing:
            raise UserError(
                f"missing --{', --'.join(missing)}",
                fix="pass the training text, the held-out text and their SentencePiece model",
            )
        inputs = ExperimentInputs(
            FLAGS.input_file,
            FLAGS.eval_file,
            FLAGS.spm_model_file,
            FLAGS.input_format,
            FLAGS.do_lower_case,
        )
    downstream = None
    if FLAGS.downstream_task:
        downstream = DownstreamOptions(
            FLAGS.downstream_task,
            FLAGS.downstream_data_dir,
            FLAGS.downstream_max_train_examples,
            FLAGS.downstream_epochs,
            FLAGS.downstream_learning_rate,
        )
    result = run_experiment(
        FLAGS.preset,
        FLAGS.output_dir,
        inputs,
        scale,
        FLAGS.parallelism,
        tuple(FLAGS.cells),
        downstream,
        runtime=config_from_flags(RuntimeOptions).resolve(),
    )
    logging.info("Cells run now: %s", ", ".join(result.ran) or "none (all finished earlier)")
    for path in result.files:
        print(path)


def run() -> None:
    """`albert-tf experiment`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
