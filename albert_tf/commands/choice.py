r"""Fine-tunes ALBERT on multiple choice: RACE's layout or generic JSONL/CSV files.

See albert_tf.finetune.multiple_choice. Examples:
    # RACE from an encoder bundle (the original recipe: length 512, QA 128, lr 1e-5):
    albert-tf choice --task=race --train_file=RACE/train \
        --dev_file=RACE/dev --init_checkpoint=/tmp/albert_export --output_dir=/tmp/race \
        --do_train --do_eval --export_saved_model

    # Cosmos QA's CSV (columns context, question, answer0..answer3, label), 20% of the
    # contexts held out as dev:
    albert-tf choice --task=generic --train_file=cosmosqa/valid.csv \
        --holdout_fraction=0.2 --init_checkpoint=/tmp/albert_export --output_dir=/tmp/cosmos \
        --do_train --do_eval
"""

from __future__ import annotations

from albert_tf import cli
from albert_tf.finetune.flags import finetune_main
from albert_tf.finetune.multiple_choice.multiple_choice_config import MultipleChoiceConfig

# A flag per config field; main imports the family (TensorFlow) and runs the driver.
main = finetune_main(
    MultipleChoiceConfig, "albert_tf.finetune.multiple_choice.multiple_choice_task"
)


def run() -> None:
    """`albert-tf choice`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
