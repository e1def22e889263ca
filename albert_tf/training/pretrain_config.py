"""`PretrainConfig`: every setting of a pretraining run (the flags of `albert-tf pretrain`)."""

from __future__ import annotations

import dataclasses

from albert_tf.config_fields import check_range, option
from albert_tf.data.masking import MaskingOptions
from albert_tf.errors import UserError
from albert_tf.training.training_config import TrainingConfig


@dataclasses.dataclass(frozen=True)
class PretrainConfig(TrainingConfig):
    """Settings of `train_and_evaluate` (`TrainingConfig` plus the data, the model and the
    schedule); names follow the original flags.

    Batch sizes are *global*: `train_batch_size` examples per optimizer update
    over all replicas and workers (the paper's batch size, the one the learning
    rate goes with). `gradient_accumulation_steps` = k splits each replica's
    share into k micro-batches to save memory without changing the math.

    Example:
    >>> config = PretrainConfig(input_file="out/train-*.tfrecord",
    ...                         albert_config_file="albert_config.json",
    ...                         train_batch_size=64, num_train_steps=1000)
    >>> config.replace(precision="mixed_bfloat16").precision
    'mixed_bfloat16'
    """

    train_batch_size: int = 4096
    optimizer: str = "lamb"
    learning_rate: float = 0.00176
    input_file: str = option("", "TFRecord glob patterns for training, comma-separated.")
    albert_config_file: str = option(
        "", "The model's albert_config.json, or a preset name (e.g. albert_base)."
    )
    eval_file: str = option("", "TFRecord glob patterns for evaluation, comma-separated.")
    init_checkpoint: str = option(
        "",
        "Start from: a pretraining checkpoint (dir or prefix; encoder and heads) or an "
        "encoder.keras file (encoder only). Ignored when output_dir already has a checkpoint.",
    )
    do_train: bool = option(True, "Train.")
    do_eval: bool = option(False, "Evaluate at every checkpoint and at the end; keep best/.")
    max_seq_length: int = option(512, "Sequence length of the records.")
    max_predictions_per_seq: int = option(20, "Masked positions per record.")
    num_train_steps: int = option(125_000, "Optimizer updates.")
    num_warmup_steps: int = option(3125, "Linear warmup steps.")
    save_checkpoints_steps: int = option(5000, "Steps between checkpoints.")
    keep_checkpoint_max: int = option(5, "Checkpoints kept.")
    max_eval_steps: int = option(100, "Eval batches at most.")
    log_every_steps: int = option(100, "Steps between log lines and summaries.")
    gradient_accumulation_steps: int = option(
        1, "Micro-batches per update (same math, less memory)."
    )
    shuffle_buffer_size: int = option(10_000, "Training records in the shuffle buffer.")
    dynamic_masking: bool = option(
        False,
        "Re-draw the whole-word n-gram masks each time a training record is read (needs "
        "token_boundary in the records); eval keeps the records' masks.",
    )
    masked_lm_prob: float = option(
        0.15, "With --dynamic_masking: share of the pieces to mask (then capped)."
    )
    ngram: int = option(3, "With --dynamic_masking: longest masked n-gram, in words.")
    sentence_order_loss_weight: float = option(
        1.0,
        "Weight of the sentence-order (or NSP) loss; 0 trains MLM only (the paper's Table 5 "
        "'None' row; the head stays untrained).",
    )
    # -- continued pretraining on a domain (docs/domain_adaptation.md) --
    new_rows_from: int = option(
        0,
        "Id of the first piece a vocabulary extension added (the old vocabulary size, e.g. "
        "30000); with --new_rows_only_steps.",
    )
    new_rows_only_steps: int = option(
        0,
        "Train only the word-embedding rows from --new_rows_from on (and their MLM output "
        "biases) for this many first steps; the rest stays as --init_checkpoint loaded it.",
    )
    general_input_file: str = option(
        "",
        "TFRecord glob patterns of general-domain text (the kind the model was pretrained on), "
        "mixed into training at --general_mix_ratio to limit forgetting.",
    )
    general_mix_ratio: float = option(
        0.0, "Share of the training records taken from --general_input_file, spread evenly."
    )
    general_eval_file: str = option(
        "",
        "Held-out general-domain TFRecord patterns, evaluated beside --eval_file "
        "(eval_general/ metrics: forgetting).",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in (
            "max_seq_length",
            "max_predictions_per_seq",
            "num_train_steps",
            "save_checkpoints_steps",
            "keep_checkpoint_max",
            "max_eval_steps",
            "log_every_steps",
            "gradient_accumulation_steps",
        ):
            check_range(name, getattr(self, name), low=1)
        check_range("num_warmup_steps", self.num_warmup_steps, low=0)
        check_range("masked_lm_prob", self.masked_lm_prob, 0.0, 1.0, low_open=True, high_open=False)
        self.masking_options()  # checks ngram
        check_range("sentence_order_loss_weight", self.sentence_order_loss_weight, low=0)
        check_range("new_rows_from", self.new_rows_from, low=0)
        check_range("new_rows_only_steps", self.new_rows_only_steps, low=0)
        check_range("general_mix_ratio", self.general_mix_ratio, 0.0, 1.0)
        if self.new_rows_only_steps and not self.new_rows_from:
            raise UserError(
                "new_rows_only_steps needs new_rows_from",
                where="--new_rows_from",
                fix="pass the old vocabulary size (the first new piece's id)",
            )
        if bool(self.general_input_file) != (self.general_mix_ratio > 0):
            raise UserError(
                "general_input_file and general_mix_ratio go together",
                where="--general_mix_ratio",
                fix="pass both (a ratio in (0, 1)), or neither",
            )
        if self.general_eval_file and not self.do_eval:
            raise UserError("general_eval_file is evaluated with do_eval", fix="pass --do_eval")
        if not self.albert_config_file:
            raise UserError("albert_config_file is required (the model's albert_config.json).")
        if self.do_train and not self.input_file:
            raise UserError("do_train needs input_file (TFRecord glob patterns).")
        if self.do_eval and not self.eval_file:
            raise UserError("do_eval needs eval_file (TFRecord glob patterns).")
        if self.train_batch_size % self.gradient_accumulation_steps:
            raise UserError(
                f"train_batch_size ({self.train_batch_size}) must be divisible by "
                f"gradient_accumulation_steps ({self.gradient_accumulation_steps})."
            )

    def masking_options(self) -> MaskingOptions:
        """The options of `dynamic_masking`'s re-drawn masks."""
        return MaskingOptions(
            max_predictions_per_seq=self.max_predictions_per_seq,
            masked_lm_prob=self.masked_lm_prob,
            ngram=self.ngram,
        )
