r"""Fine-tunes ALBERT for text classification: a GLUE task or any TSV/CSV file.

See albert_tf.finetune.classification.

Examples:
    # GLUE RTE from an encoder bundle (export dir or pretraining output with its tokenizer):
    albert-tf classify --task=rte --data_dir=glue/RTE \
        --init_checkpoint=/tmp/albert_export --output_dir=/tmp/rte --do_train --do_eval

    # Any TSV: a header with "review" and "stars" columns, labels read from train.tsv:
    albert-tf classify --task=tsv --data_dir=reviews --text_a_column=review \
        --label_column=stars --init_checkpoint=/tmp/albert_export --output_dir=/tmp/reviews
"""

from __future__ import annotations

from albert_tf import cli
from albert_tf.finetune.flags import finetune_main

# A flag per field of the family's config; main runs the driver, which imports the family.
main = finetune_main("classification")


def run() -> None:
    """`albert-tf classify`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
