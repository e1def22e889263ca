"""Accuracy of a fine-tuned classifier's LiteRT variants next to the Keras (float) model.

Reads a `run_classifier` output directory (model.keras, task.json, spm.model) and the
directory `scripts/export_litert.py` wrote from it, and classifies every row of `--data_file`:

* `keras float32`: the fine-tuned model in float32 on `AlbertTextFeatures` ids (the reference),
  and the model as trained (its dtype policy, e.g. mixed_bfloat16: what `--do_eval` measures);
* each ids-in `.tflite`: the same ids, through the ai-edge-litert interpreter;
* each text-in `.tflite`: the raw texts, through the normalization pre-step and the model.

Prints accuracy, the change from `keras` in points, the share of rows whose prediction agrees
with `keras`, and the largest logit difference. Goal (issue 18): int8 within 1 point of float.

Example (heavy: run under the CPU lock):
    python benchmarks/accuracy_litert.py --run_dir=/tmp/sst2 \
        --litert_dir=/tmp/sst2_litert --data_file=../shared/data/glue/SST-2/dev.tsv
"""

from __future__ import annotations

import json
import os
import time

import numpy as np
import tensorflow as tf
from absl import app, flags

from albert_tf.export.finetuned_run import load_finetuned_model, read_task_file, run_spm_file
from albert_tf.export.litert.converter import float32_model
from albert_tf.export.litert.runner import LiteRtModel
from albert_tf.file_names import LITERT_MANIFEST_FILE
from albert_tf.finetune.classification.examples import read_examples
from albert_tf.finetune.classification.task_specs import get_task
from albert_tf.models.classifier import AlbertClassifier  # noqa: F401  (registers the class)
from albert_tf.tokenization.text_features import AlbertTextFeatures

flags.DEFINE_string("run_dir", None, "run_classifier output directory.")
flags.DEFINE_string("litert_dir", None, "export_litert output directory of that run.")
flags.DEFINE_string("data_file", None, "Labeled file of the task (e.g. SST-2 dev.tsv).")
flags.DEFINE_integer("num_threads", 2, "LiteRT interpreter threads.")
flags.mark_flags_as_required(["run_dir", "litert_dir", "data_file"])


def main(argv: list[str]) -> None:
    del argv
    values = flags.FLAGS
    task_info = read_task_file(values.run_dir)
    task = get_task(task_info["task"], task_info["labels"])
    examples = read_examples(values.data_file, task)
    model = load_finetuned_model(values.run_dir, tf.distribute.get_strategy())
    featurizer = AlbertTextFeatures(
        run_spm_file(values.run_dir),
        task_info["max_seq_length"],
        do_lower_case=task_info["do_lower_case"],
    )
    columns = [tf.constant(examples.texts_a)]
    if examples.texts_b is not None:
        columns.append(tf.constant(examples.texts_b))
    features = {
        k: v.numpy() for k, v in featurizer(columns if task.is_pair else columns[0]).items()
    }
    labels = np.asarray(examples.labels)
    # The reference is the float32 model (what the LiteRT files hold); the as-trained model may
    # compute in bfloat16 (--precision=auto on CPUs with AMX).
    float32 = float32_model(model)
    keras_logits = float32.predict(features, batch_size=64, verbose=0)
    keras_predictions = keras_logits.argmax(-1)
    keras_accuracy = float((keras_predictions == labels).mean())
    trained_predictions = model.predict(features, batch_size=64, verbose=0).argmax(-1)
    trained_accuracy = float((trained_predictions == labels).mean())
    manifest_path = os.path.join(values.litert_dir, LITERT_MANIFEST_FILE)
    with open(manifest_path, encoding="utf-8") as handle:
        manifest = json.load(handle)
    print(f"{len(labels)} rows of {values.data_file}, seq_length {manifest['seq_length']}")
    print(
        f"{'model':<36}{'accuracy':>10}{'points vs keras':>17}{'agree':>8}"
        f"{'max |logit diff|':>18}{'s':>6}"
    )
    print(f"{'keras float32':<36}{keras_accuracy * 100:>10.2f}{0:>17.2f}{1:>8.3f}{0:>18.2e}")
    trained_name = f"keras as trained ({model.encoder.dtype_policy.name})"
    print(
        f"{trained_name:<36}{trained_accuracy * 100:>10.2f}"
        f"{(trained_accuracy - keras_accuracy) * 100:>17.2f}"
        f"{float((trained_predictions == keras_predictions).mean()):>8.3f}"
    )
    for entry in manifest["models"]:
        runner = LiteRtModel(
            os.path.join(values.litert_dir, entry["file"]), num_threads=values.num_threads
        )
        started = time.perf_counter()
        if entry["input"] == "text":
            outputs = runner.run_texts(
                examples.texts_a, examples.texts_b, do_lower_case=manifest["do_lower_case"]
            )
        else:
            outputs = runner.run(**features)
        seconds = time.perf_counter() - started
        predictions = outputs["logits"].argmax(-1)
        accuracy = float((predictions == labels).mean())
        agree = float((predictions == keras_predictions).mean())
        diff = float(np.abs(outputs["logits"] - keras_logits).max())
        print(
            f"{entry['file']:<36}{accuracy * 100:>10.2f}{(accuracy - keras_accuracy) * 100:>17.2f}"
            f"{agree:>8.3f}{diff:>18.2e}{seconds:>6.0f}"
        )


if __name__ == "__main__":
    app.run(main)
