r"""Fine-tunes ALBERT for span QA (extractive QA) on SQuAD v1.1 / v2.0 files.

See albert_tf.finetune.span_qa.

Examples:
    # SQuAD v2.0 from an encoder bundle; predictions and official scores for the dev file:
    albert-tf span-qa --train_file=train-v2.0.json --predict_file=dev-v2.0.json \
        --version_2_with_negative --init_checkpoint=/tmp/albert_export --output_dir=/tmp/squad2 \
        --do_train --do_predict --export_saved_model

    # Predict another file with a finished run (a v1.1 file is answered without no-answers):
    albert-tf span-qa --predict_file=xquad.en.json --version_2_with_negative \
        --output_dir=/tmp/squad2 --do_predict
"""

from __future__ import annotations

from albert_tf import cli
from albert_tf.finetune.flags import finetune_main

# A flag per field of the family's config; main runs the driver, which imports the family.
main = finetune_main("span_qa")


def run() -> None:
    """`albert-tf span-qa`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
