"""Training steps as XLA programs, for a device with no TensorFlow (`run_step_hlo.py` runs them).

The GPU machines lent to this project hold PyTorch and JAX, not TensorFlow, and TensorFlow's
CUDA build (~1.8 GB of wheels with its CUDA 12 libraries) cannot travel there. What a
`jit_compile=True` step hands XLA can: `experimental_get_compiler_ir` gives the HLO module
TensorFlow compiles, with the step's inputs and every variable it reads (weights, optimizer
slots, counters) as parameters and the updated variables as outputs. jaxlib's XLA compiles it
for the GPU as TensorFlow's own XLA would, so the device time of each library's graph is
measured with the same compiler, on the same device.

Written per step, under `--output_dir`:

* `<tag>.hlo.pb.gz`: the serialized HLO module (gzip);
* `<tag>.npz`: the batch (real token ids, as the benchmarks feed) and the small variables
  (biases, LayerNorm scales, counters, learning-rate state: their real values);
* `manifest.json`: per step its parameters in HLO order (the batch's named `batch/<key>`; the
  variables' name, shape, dtype and how to fill the large ones: the weights N(0, 0.02), small
  Adam-style slots), batch, length, the model FLOPs of one sequence (`roofline.py`'s yardstick:
  full sequences, the MLM head at the masked positions) and the model's Hugging Face config
  (`run_hf_steps.py` trains the same shapes in PyTorch).

Steps: `albert_tf` and `keras_hub`, pretraining (MLM + SOP, LAMB; `bench_pretraining.py`'s
steps) and pair classification (`fit`'s `train_step` under AdamW; `bench_finetune.py`'s models),
ALBERT-base and -large, lengths 128 and 512, mixed_bfloat16. albert_tf's model is built as
where TensorFlow sees a GPU (plain ops, not the CPU kernels of `runtime/fused_kernels.py`).

Illustration (not run; ~3 minutes on 2 CPU cores):
    python benchmarks/export_step_hlo.py --output_dir=.steps  # what run_gpu_steps.sh reads
    python benchmarks/export_step_hlo.py --output_dir=/tmp/steps --presets=albert_tiny \
        --lengths=128 --batch_sizes=albert_tiny:128=8 --exact
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
from collections.abc import Callable
from typing import Any

import keras
import numpy as np
import tensorflow as tf
from bench_finetune import albert_tf_classifier, keras_hub_classifier, synthetic_pairs
from bench_pretraining import PREDICTIONS, _optimizer, keras_hub_train_step, synthetic_batch
from roofline import encoder_forward_flops

from albert_tf.config import AlbertConfig
from albert_tf.convert.config_conversion import hf_config_dict
from albert_tf.environment import switch
from albert_tf.models import AlbertEncoder, use_chains
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.runtime import Runtime
from albert_tf.training.optimizer_all_reduce import disable_optimizer_all_reduce
from albert_tf.training.pretrain_step import make_replica_train_step

PRECISION = "mixed_bfloat16"
# Batches that fill an 80 GB GPU with room to spare (activations of ~75 MB per base sequence
# at 128, ~1.1 GB per large sequence at 512), keyed "preset:length".
BATCH_SIZES = {
    "albert_base:128": 256,
    "albert_base:512": 64,
    "albert_large:128": 128,
    "albert_large:512": 32,
}
# Variables up to this many elements travel with their real values.
SMALL_VARIABLE = 4096
# A step: a function of one argument (its batch), that batch, and every variable it can read.
Step = tuple[Callable[[Any], Any], Any, list[Any]]


def albert_tf_pretraining(config: AlbertConfig, batch: int, length: int, runtime: Runtime) -> Step:
    """`pretrain.py`'s replica step (LAMB), compiled whole."""
    keras.utils.set_random_seed(0)
    model = AlbertPretrainer(AlbertEncoder(config, dtype=PRECISION))
    use_chains(model, runtime.chains)
    optimizer = _optimizer("lamb")
    optimizer.build(model.trainable_variables)
    disable_optimizer_all_reduce(optimizer)
    step = make_replica_train_step(model, optimizer, batch, 1, True)
    features = synthetic_batch(config.vocab_size, batch=batch, length=length)
    return step, features, model.variables + optimizer.variables


def keras_hub_pretraining(config: AlbertConfig, batch: int, length: int, runtime) -> Step:
    """`bench_pretraining.py`'s keras-hub step: backbone, `MaskedLMHead`, a SOP Dense; LAMB."""
    step, variables = keras_hub_train_step(config, PRECISION, True, "lamb", length)
    return step, synthetic_batch(config.vocab_size, batch=batch, length=length), variables


def _fit_step(model: keras.Model, features: dict, labels: np.ndarray) -> Step:
    """`fit`'s compiled step: the model's `train_step`, built as `fit` builds it."""
    data = (tf.nest.map_structure(tf.constant, features), tf.constant(labels))
    model._symbolic_build(data_batch=data)  # What `fit` does before its first step.
    variables = model.variables + model.optimizer.variables + model.metrics_variables
    return tf.function(model.train_step, jit_compile=True), data, variables


def albert_tf_finetuning(config: AlbertConfig, batch: int, length: int, runtime: Runtime) -> Step:
    """`bench_finetune.py`'s `AlbertClassifier`, as `run_classifier.py` compiles it."""
    data = synthetic_pairs(config, batch, length)
    model, features = albert_tf_classifier(config, data, PRECISION, True, runtime=runtime)
    return _fit_step(model, features, data["labels"])


def keras_hub_finetuning(config: AlbertConfig, batch: int, length: int, runtime) -> Step:
    """`bench_finetune.py`'s keras-hub `AlbertTextClassifier` (no preprocessor)."""
    data = synthetic_pairs(config, batch, length)
    model, features = keras_hub_classifier(config, data, PRECISION, True)
    return _fit_step(model, features, data["labels"])


STEPS = {
    ("albert_tf", "pretraining"): albert_tf_pretraining,
    ("keras_hub", "pretraining"): keras_hub_pretraining,
    ("albert_tf", "finetuning"): albert_tf_finetuning,
    ("keras_hub", "finetuning"): keras_hub_finetuning,
}


def sequence_flops(config: AlbertConfig, task: str, length: int) -> float:
    """Model FLOPs of one sequence's training step (3x the forward; the same for every library).

    Pretraining adds the MLM head at its `PREDICTIONS` positions, classification its pooler
    output layer; implementations that compute more (a head at every position) are not credited.
    """
    h, e, v = config.hidden_size, config.embedding_size, config.vocab_size
    head = 2 * PREDICTIONS * (h * e + e * v) if task == "pretraining" else 2 * h * 2
    return 3 * (encoder_forward_flops(config, length) + head)


def _fill(variable: Any) -> str:
    """How the device fills a large variable: weights N(0, 0.02), Adam-style slots small."""
    name = variable.path
    if "velocity" in name:
        return "velocity"
    if "momentum" in name:
        return "momentum"
    return "weight"


def export_step(step: Step, tag: str, output_dir: str, exact: bool = False) -> dict:
    """Writes `tag`'s HLO and values; returns its manifest fields (`parameters` in HLO order).

    `exact`: every variable travels with its real value, and TensorFlow runs the step once:
    its first output (`reference_output`) is what the HLO run elsewhere must reproduce.
    """
    function, batch, variables = step
    concrete = function.get_concrete_function(batch)
    flat_batch = tf.nest.flatten(batch)  # The order of the HLO's first parameters.
    paths = keras.tree.flatten_with_path(batch)
    if [id(tensor) for _, tensor in paths] != [id(tensor) for tensor in flat_batch]:
        raise ValueError(f"{tag}: the batch's paths and TensorFlow's order disagree")
    by_handle = {id(variable.handle): variable for variable in variables}
    parameters, values = [], {}
    for index, (path, tensor) in enumerate(paths):
        values[f"p{index}"] = tensor.numpy()
        parameters.append({"name": "batch/" + "/".join(map(str, path)), "fill": "value"})
    for captured in concrete.captured_inputs:
        variable = by_handle.get(id(captured))
        if variable is None:
            raise ValueError(f"{tag}: the step reads a variable missing from its list")
        index = len(parameters)
        value = variable.numpy()
        small = exact or value.size <= SMALL_VARIABLE or value.dtype.kind != "f"
        if small:
            values[f"p{index}"] = value
        parameters.append(
            {
                "name": variable.path,
                "shape": list(value.shape),
                "dtype": str(value.dtype),
                "fill": "value" if small else _fill(variable),
            }
        )
    hlo = function.experimental_get_compiler_ir(batch)(stage="hlo_serialized")
    with gzip.open(os.path.join(output_dir, f"{tag}.hlo.pb.gz"), "wb") as handle:
        handle.write(hlo)
    np.savez_compressed(os.path.join(output_dir, f"{tag}.npz"), **values)
    exported = {"parameters": parameters}
    if exact:  # After the values were read: the step updates the variables.
        first = tf.nest.flatten(function(batch))[0]
        exported["reference_output"] = np.asarray(first, np.float64).ravel().tolist()
    return exported


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output_dir", required=True)
    parser.add_argument("--presets", default="albert_base,albert_large")
    parser.add_argument("--lengths", default="128,512")
    parser.add_argument("--steps", default=",".join(f"{i}:{t}" for i, t in STEPS))
    parser.add_argument(
        "--batch_sizes", default="", help="overrides, e.g. albert_tiny:128=8,albert_base:128=128"
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="all variables' real values and TensorFlow's first output (a check, small models)",
    )
    parser.add_argument(
        "--form_label",
        action="store_true",
        help="put the kernels' form in albert_tf's tags (albert_tf_plain-..., albert_tf_fused-...) "
        "and add to an existing manifest: to compare ALBERT_TF_FUSED_KERNELS=0/1 in one run",
    )
    parser.add_argument("--label", default="", help="albert_tf's tag label (with --form_label)")
    return parser.parse_args()


def main() -> None:
    args = _parse_args()
    # The graph TensorFlow builds where it sees a GPU or TPU: plain ops, no CPU kernels;
    # ALBERT_TF_FUSED_KERNELS=1 exports the other form.
    runtime = Runtime(fused_kernels=switch("ALBERT_TF_FUSED_KERNELS", default="off") == "on")
    form = args.label or ("fused" if runtime.fused_kernels else "plain")
    os.makedirs(args.output_dir, exist_ok=True)
    manifest_path = os.path.join(args.output_dir, "manifest.json")
    batches = dict(BATCH_SIZES)
    batches.update(
        dict(item.split("=") for item in args.batch_sizes.split(",") if item)  # type: ignore[misc]
    )
    manifest = []
    if args.form_label and os.path.exists(manifest_path):
        with open(manifest_path) as handle:
            manifest = json.load(handle)
    for preset in args.presets.split(","):
        config = AlbertConfig.preset(preset)
        for length in map(int, args.lengths.split(",")):
            batch = int(batches[f"{preset}:{length}"])
            for key in args.steps.split(","):
                implementation, task = key.split(":")
                label = f"_{form}" if args.form_label and implementation == "albert_tf" else ""
                tag = f"{implementation}{label}-{task}-{preset}-{length}"
                manifest = [entry for entry in manifest if entry["tag"] != tag]
                keras.backend.clear_session()
                step = STEPS[implementation, task](config, batch, length, runtime)
                exported = export_step(step, tag, args.output_dir, args.exact)
                manifest.append(
                    {
                        "tag": tag,
                        "implementation": implementation,
                        "task": task,
                        "preset": preset,
                        "length": length,
                        "batch_size": batch,
                        "sequence_flops": sequence_flops(config, task, length),
                        "hf_config": hf_config_dict(config),
                        **exported,
                    }
                )
                count = len(exported["parameters"])
                print(f"exported {tag}: batch {batch}, {count} parameters", flush=True)
    with open(manifest_path, "w") as handle:
        json.dump(manifest, handle, indent=1)


if __name__ == "__main__":
    main()
