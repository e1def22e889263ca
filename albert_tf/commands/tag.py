r"""Fine-tunes ALBERT for tagging (NER, chunking) on CoNLL-style or JSONL files.

See albert_tf.finetune.tagging. Predictions are written as `word gold predicted` lines
(conlleval's input); `--export_saved_model` writes a SavedModel with `tag(text)` and
`tag_words(words, num_words)`.

Examples:
    # WNUT-17 (word<TAB>tag, IOB2) from an encoder bundle:
    albert-tf tag --data_dir=wnut17 --train_file=wnut17train.conll \
        --dev_file=emerging.dev.conll --init_checkpoint=/tmp/albert_export \
        --output_dir=/tmp/wnut17 --do_train --do_eval --export_saved_model

    # CoNLL-2003 (word POS chunk NER, IOB1), the tag in the last column:
    albert-tf tag --data_dir=conll2003 --train_file=eng.train \
        --dev_file=eng.testa --test_file=eng.testb --tag_scheme=iob1 \
        --init_checkpoint=/tmp/albert_export --output_dir=/tmp/conll --do_train --do_eval
"""

from __future__ import annotations

from albert_tf import cli
from albert_tf.finetune.flags import finetune_main

# A flag per field of the family's config; main runs the driver, which imports the family.
main = finetune_main("tagging")


def run() -> None:
    """`albert-tf tag`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
