r"""Distills a fine-tuned model into a smaller, faster one of the same task family.

The teacher is a finished run of `classify`, `choice` or `tag` (or a converted task model);
the student is a run of the same family (its `task.json`, tokenizer and labels), so `export`,
`convert` and serving take it unchanged. It trains on the teacher's training data (its
`finetune_config.json`; any of the family's flags overrides), plus unlabeled text of the
domain (`--unlabeled_file`, one example per line: the teacher's outputs only), with Keras's
`Distiller`: the labels (`--label_weight`) and the teacher's logits at `--temperature`,
optionally its last hidden states (`--hidden_weight`). A killed run resumes when the same
command line runs again. See docs/distillation.md.

Examples:
    # ALBERT's free student: the teacher's shared block applied 2 times instead of 12:
    albert-tf distill --teacher=/tmp/sst2 --student_layers=2 --output_dir=/tmp/sst2_k2

    # A smaller shape, initialized from the teacher's leading slices:
    albert-tf distill --teacher=/tmp/sst2 --student_layers=4 \
        --student_config=hidden_size=128,num_attention_heads=2,intermediate_size=512 \
        --output_dir=/tmp/sst2_small --export_saved_model

    # More transfer text: unlabeled sentences of the domain, one per line:
    albert-tf distill --teacher=/tmp/sst2 --student_layers=2 --unlabeled_file=/tmp/reviews.txt \
        --output_dir=/tmp/sst2_k2_more
"""

from __future__ import annotations

from albert_tf import cli
from albert_tf.finetune.distillation.flags import distill_main

main = distill_main()  # The teacher's family's flags and DistillConfig's; runs the driver.


def run() -> None:
    """`albert-tf distill`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
