"""`DistillConfig`: what `albert-tf distill` adds to a fine-tuning run (TensorFlow-free, so the
command's `--help` answers at once)."""

from __future__ import annotations

import dataclasses

from albert_tf.config_fields import check_range, option
from albert_tf.errors import UserError


@dataclasses.dataclass(frozen=True)
class DistillConfig:
    """What `albert-tf distill` adds to a fine-tuning run of the teacher's family."""

    teacher: str = option(
        "", "The finished fine-tuning run (or converted task model) to distill: its directory."
    )
    student_layers: int = option(
        0,
        "Student depth: the teacher's blocks applied this many times (with one shared block: "
        "no new parameters). 0: the teacher's depth (or --student_config's).",
    )
    student_config: tuple[str, ...] = option(
        (),
        "Student shape as field=value overrides of the teacher's AlbertConfig (hidden_size, "
        "num_attention_heads, intermediate_size, embedding_size, num_hidden_layers), e.g. "
        "hidden_size=128,num_attention_heads=2,intermediate_size=512; weights from the "
        "teacher's leading slices.",
    )
    temperature: float = option(2.0, "Softmax temperature of the teacher's and student's logits.")
    label_weight: float = option(
        0.5, "Weight of the task's labels in the loss (0..1); the teacher's outputs get the rest."
    )
    unlabeled_file: str = option(
        "",
        "Unlabeled text of the task's domain added to the transfer set, one example per line "
        "(classification: a text, or text_a<TAB>text_b for a pair task; tagging: a sentence, "
        "split into words at whitespace): the student learns the teacher's outputs on it, "
        "without a label loss.",
    )
    hidden_weight: float = option(
        0.0,
        "Weight of the hidden states the teacher's head reads (pooled output, or every "
        "position's for tagging; mean squared error beside the logits; the student's "
        "hidden_size must be the teacher's). 0: logits only.",
    )

    def __post_init__(self) -> None:
        if not self.teacher:
            raise UserError("no teacher", where="--teacher", fix="pass a finished run's directory")
        check_range("student_layers", self.student_layers, low=0)
        check_range("temperature", self.temperature, low=0, low_open=True)
        check_range("label_weight", self.label_weight, low=0.0, high=1.0, high_open=False)
        check_range("hidden_weight", self.hidden_weight, low=0.0)
