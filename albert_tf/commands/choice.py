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

# A flag per field of the family's config; main runs the driver, which imports the family.
main = finetune_main("multiple_choice")


def run() -> None:
    """`albert-tf choice`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
