"""The optional downstream column: fine-tune every cell's encoder on one classification task
with the ordinary fine-tuning library (`run_classifier`), the same budget for every cell.

Example (an illustration, not a doctest: it fine-tunes a model):

    options = DownstreamOptions(task="sst-2", data_dir="glue/SST-2", max_train_examples=2000)
    finetune_cell(options, "cell/pretrain/encoder.keras", "spm.model", True, 64, 12345, "out",
                  Runtime.for_machine())
    # {'downstream_accuracy': 0.71..., 'downstream_accuracy_se': 0.015..., ...}
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from albert_tf.experiments.evaluation import binomial_standard_error
from albert_tf.finetune.classification.classification_config import ClassificationConfig
from albert_tf.finetune.classification.classification_task import run_classifier

if TYPE_CHECKING:
    from albert_tf.runtime.runtime import Runtime


@dataclasses.dataclass(frozen=True)
class DownstreamOptions:
    """Task, data and budget of the downstream fine-tuning (same for every cell).

    Each field is the `ClassificationConfig` field of the same name, passed on as it is.
    """

    task: str
    data_dir: str
    max_train_examples: int = 2000
    num_train_epochs: float = 2.0
    learning_rate: float = 1e-4
    train_batch_size: int = 32


def finetune_cell(
    options: DownstreamOptions,
    encoder_file: str,
    spm_model_file: str,
    do_lower_case: bool,
    max_seq_length: int,
    seed: int,
    output_dir: str,
    runtime: Runtime,
) -> dict[str, float]:
    """Fine-tunes `encoder_file` on the task in `runtime`'s speed-only forms; returns its dev
    accuracy with binomial SE."""
    config = ClassificationConfig(
        **dataclasses.asdict(options),
        init_checkpoint=encoder_file,
        spm_model_file=spm_model_file,
        do_lower_case=do_lower_case,
        max_seq_length=max_seq_length,
        seed=seed,
        precision="float32",
    )
    results = run_classifier(config, output_dir, runtime)
    accuracy_key = sorted(k for k in results if k.endswith("/accuracy"))[0]
    dev_name = accuracy_key.rsplit("/", 1)[0]
    accuracy = float(results[accuracy_key])
    examples = int(results[f"{dev_name}/examples"])
    return {
        "downstream_accuracy": accuracy,
        "downstream_accuracy_se": binomial_standard_error(accuracy, examples),
        "downstream_examples": float(examples),
    }
