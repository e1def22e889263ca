"""`FinetuneConfig`: the settings every fine-tuning task family shares.

Model, tokenizer, optimization, what to do, and execution. Each task family extends it with
its data settings (e.g. `ClassificationConfig` in `albert_tf.finetune.classification`); every
field carries its help text, so the scripts' flags are generated from the class
(`albert_tf.finetune.flags`) and the driver (`albert_tf.finetune.driver`) reads the same fields
for every family.

Example:
    >>> config = FinetuneConfig(init_checkpoint="bundle/", learning_rate=2e-5)
    >>> config.replace(num_train_epochs=2.0).num_train_epochs
    2.0
    >>> FinetuneConfig(data_dir="glue/RTE").data_path("dev.tsv")
    'glue/RTE/dev.tsv'
"""

from __future__ import annotations

import dataclasses
import os

from albert_tf.config_fields import check_range, option
from albert_tf.errors import UserError
from albert_tf.training.training_config import TrainingConfig


@dataclasses.dataclass(frozen=True)
class FinetuneConfig(TrainingConfig):
    """Settings shared by every task family (`TrainingConfig`'s optimization and execution,
    plus the model, the data and the steps); defaults are the original ALBERT GLUE recipe's.

    AdamW, 10% linear warmup then linear decay to 0, weight decay 0.01 (not on LayerNorm and
    bias), gradients clipped to norm 1.0, dropout 0.1 before the task head. A pretrained
    ALBERT wants a learning rate around 1e-5..5e-5: much higher and training can collapse.
    Task families override defaults where the original recipe differs (e.g. SQuAD's lengths).
    The `do_*` steps and `export_saved_model` are off as flags unless passed: a script run
    without them says "nothing to do".
    """

    # -- model --
    init_checkpoint: str = option(
        "",
        "Pretrained encoder: bundle/export dir, encoder.keras, pretraining workdir or ckpt "
        "prefix, Hugging Face directory or original TF1 checkpoint. Empty: random "
        "initialization (needs --albert_config_file).",
    )
    albert_config_file: str = option(
        "",
        "albert_config.json or a preset name, e.g. albert_base (random init, checkpoints "
        "without config).",
    )
    spm_model_file: str = option(
        "", "SentencePiece model (default: the one shipped with the encoder)."
    )
    do_lower_case: bool = option(True, "Lowercase text (with --spm_model_file).")
    max_seq_length: int = option(128, "Packed sequence length.")
    dropout_rate: float = option(0.1, "Dropout before the task head.")
    # -- data --
    data_dir: str = option("", "Directory of the data files (file names without a directory).")
    max_train_examples: int = option(0, "Train on the first N examples only (0: all).")
    # -- optimization (and execution: `TrainingConfig`) --
    num_train_epochs: float = option(3.0, "Epochs (may be fractional).")
    warmup_proportion: float = option(0.1, "Fraction of the steps spent in linear warmup.")
    # -- what to do --
    do_train: bool = option(True, "Fine-tune.", flag_default=False)
    do_eval: bool = option(True, "Evaluate on the dev data.", flag_default=False)
    do_predict: bool = option(False, "Write predictions for the test data.", flag_default=False)
    export_saved_model: bool = option(
        False, "Export a raw-text SavedModel into output_dir/saved_model.", flag_default=False
    )
    bucket_width: int = option(
        0,
        "Group training examples by length and pad each batch only to the next multiple of "
        "this many tokens (a few static shapes; 0: pad every batch to max_seq_length).",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        check_range("max_seq_length", self.max_seq_length, low=3, why="[CLS] and [SEP]s")
        check_range("num_train_epochs", self.num_train_epochs, low=0, low_open=True)
        for name in ("warmup_proportion", "dropout_rate"):
            check_range(name, getattr(self, name), low=0.0, high=1.0)
        for name in ("bucket_width", "max_train_examples"):
            check_range(name, getattr(self, name), low=0)
        if not (self.do_train or self.do_eval or self.do_predict or self.export_saved_model):
            raise UserError(
                "nothing to do",
                fix="pass --do_train, --do_eval, --do_predict or --export_saved_model",
            )

    def data_path(self, file_name: str) -> str:
        """`file_name` under `data_dir` (a path with a directory part is used as is)."""
        if not file_name or os.path.dirname(file_name) or not self.data_dir:
            return file_name
        return os.path.join(self.data_dir, file_name)
