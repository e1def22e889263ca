r"""Fine-tunes ALBERT for extractive QA on SQuAD v1.1 / v2.0.

See albert_tf.finetune.span_qa.

Examples:
    # SQuAD v2.0 from an encoder bundle; predictions and official scores for the dev file:
    albert-tf squad --train_file=train-v2.0.json --predict_file=dev-v2.0.json \
        --version_2_with_negative --init_checkpoint=/tmp/albert_export --output_dir=/tmp/squad2 \
        --do_train --do_predict --export_saved_model

    # Predict another file with a finished run (a v1.1 file is answered without no-answers):
    albert-tf squad --predict_file=xquad.en.json --version_2_with_negative \
        --output_dir=/tmp/squad2 --do_predict
"""

from __future__ import annotations

from albert_tf import cli
from albert_tf.finetune.flags import finetune_main
from albert_tf.finetune.span_qa.squad_config import SquadConfig

# A flag per config field; main imports the family (TensorFlow) and runs the driver.
main = finetune_main(SquadConfig, "albert_tf.finetune.span_qa.squad_task")


def run() -> None:
    """`albert-tf squad`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
