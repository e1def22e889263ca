"""CPU serving side by side: albert_tf's SavedModel, ONNX (float32, int8) and OpenVINO paths
next to the paths a Hugging Face user takes, on the same ALBERT-base classifier.

The model: a Hugging Face `AlbertForSequenceClassification` (ALBERT-base shape, 2 labels,
random weights, `torch.manual_seed(0)`, an 8k-piece SentencePiece model of data/sample.txt),
converted with `convert_checkpoint("hf", ..., "albert_tf")` (`albert-tf convert`), then
exported from the converted directory as a user would with the commands:

* `albert_tf saved_model`: the family's SavedModel (`albert-tf export --checkpoint=converted`),
  `classify_text` (text in, tokenized in the graph), in the runtime's serving forms;
* `albert_tf onnx float32` / `int8`: `albert-tf export --format=onnx` in ONNX Runtime (ids in);
* `openvino albert_tf onnx`: the same float32 file in OpenVINO (`INFERENCE_PRECISION_HINT=f32`,
  `PERFORMANCE_HINT=LATENCY`); `... streams`: `THROUGHPUT`, a batch split over its streams;
* `openvino albert_tf saved_model`: `openvino.convert_model` of the SavedModel
  (`serving_default`, ids in, f32);
* the Hugging Face user's: `hf torch` (eager, `no_grad`), `hf ort` (`torch.onnx.export`,
  opset 17, ONNX Runtime at level all), `hf ort optimizer` (ORT's transformer optimizer,
  `model_type="bert"`), `hf ort int8` (`quantize_dynamic`, QInt8 weights), and Optimum's
  export where `optimum-onnx` installs beside the test extra's transformers.

Peers take the ids albert_tf's featurizer makes (128 pieces per text). Batch-1 latency (median
and p99 over `--calls`) and batch-32 throughput (median of `--rounds`), every path timed in
interleaved rounds (`timing.interleaved_seconds`), in one process, or with `--processes=N`
each path alone in a fresh process, N turns, paths taking turns. Operator counts: each ONNX
graph as stored and as ONNX Runtime runs it (level all). Simulated instruction sets:
`ONEDNN_MAX_CPU_ISA=AVX2` caps TensorFlow's (and OpenVINO's) oneDNN kernels; ONNX Runtime's
MLAS kernels and PyTorch's have no such cap (they dispatch on CPUID), so their figures are the
machine's own.

Example (heavy: run under the exclusive CPU lock; ~8 minutes on 2 cores):
    flock -x /work/cpu.lock python benchmarks/bench_onnx.py --calls=60 --rounds=5
    flock -x /work/cpu.lock python benchmarks/bench_onnx.py --processes=2 --calls=30 --rounds=3
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the ops the SavedModel uses)
from bench_serving import long_texts
from peers import hf_config as peer_hf_config
from timing import interleaved_seconds

from albert_tf.config import AlbertConfig
from albert_tf.runtime import Runtime
from albert_tf.tokenization.text_features import AlbertTextFeatures

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALBERT_TF_FLOAT32 = (
    "albert_tf saved_model",
    "albert_tf onnx float32",
    "openvino albert_tf onnx",
    "openvino albert_tf onnx streams",
    "openvino albert_tf saved_model",
)
ALBERT_TF_INT8 = ("albert_tf onnx int8",)
HF_FLOAT32 = ("hf torch", "hf ort", "hf ort optimizer", "optimum ort")
HF_INT8 = ("hf ort int8",)
PATHS = ALBERT_TF_FLOAT32 + ALBERT_TF_INT8 + HF_FLOAT32 + HF_INT8


def build(workdir: str, args) -> dict[str, str]:
    """Every model file of every path, once (the parent's work): name -> path."""
    import torch
    import transformers

    from albert_tf.convert.convert import convert_checkpoint
    from albert_tf.convert.hf_tokenizer import write_hf_tokenizer
    from albert_tf.export.export_source import load_export_source
    from albert_tf.export.onnx.export import export_onnx
    from albert_tf.finetune.driver import export_finished_run
    from albert_tf.tokenization import train_sentencepiece

    files = {"workdir": workdir}
    files["spm"] = train_sentencepiece(
        [os.path.join(REPO_ROOT, "data", "sample.txt")],
        os.path.join(workdir, "spm"),
        vocab_size=args.vocab_size,
    )
    config = AlbertConfig.preset(args.preset, vocab_size=args.vocab_size)
    torch.manual_seed(0)
    hf_model = transformers.AlbertForSequenceClassification(
        peer_hf_config(config, num_labels=2)
    ).eval()
    hf_dir = files["hf_dir"] = os.path.join(workdir, "hf")
    hf_model.save_pretrained(hf_dir)
    write_hf_tokenizer(files["spm"], hf_dir)
    converted = convert_checkpoint(
        "hf",
        hf_dir,
        "albert_tf",
        os.path.join(workdir, "converted"),
        spm_model_file=files["spm"],
        seq_length=args.seq_length,
    )
    # OpenVINO reads the plain form (the compiled one-text form is an XLA function call).
    plain = export_finished_run(
        converted, os.path.join(workdir, "saved_model_plain"), runtime=Runtime.plain()
    )
    runtime = Runtime.for_machine()  # TF Serving's: what `albert-tf export` writes here.
    for form, choice in runtime.describe()["forms"].items():
        print(f"runtime: {form} {'on' if choice['on'] else 'off'} ({choice['reason']})")
    files["saved_model"] = export_finished_run(
        converted, os.path.join(workdir, "saved_model"), runtime=runtime
    )
    files["onnx_dir"] = export_onnx(os.path.join(workdir, "onnx"), load_export_source(converted))
    files["albert_tf_float32"] = os.path.join(files["onnx_dir"], "classifier_float32.onnx")
    files["albert_tf_int8"] = os.path.join(files["onnx_dir"], "classifier_int8.onnx")
    _build_hf_onnx(hf_model, files, args)
    _build_openvino_saved_model(files, plain)
    return files


def _build_hf_onnx(hf_model, files: dict, args) -> None:
    """`torch.onnx.export` (opset 17), the transformer optimizer and `quantize_dynamic`."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer

    ids = torch.ones((1, args.seq_length), dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    files["hf_float32"] = os.path.join(files["workdir"], "hf.onnx")
    torch.onnx.export(
        hf_model,
        (ids, ids, ids * 0),
        files["hf_float32"],
        input_names=names,
        output_names=["logits"],
        dynamic_axes={name: {0: "batch", 1: "sequence"} for name in names},
        opset_version=17,
        dynamo=False,
    )
    optimized = optimizer.optimize_model(
        files["hf_float32"],
        model_type="bert",
        num_heads=hf_model.config.num_attention_heads,
        hidden_size=hf_model.config.hidden_size,
    )
    files["hf_optimized"] = os.path.join(files["workdir"], "hf_optimized.onnx")
    optimized.save_model_to_file(files["hf_optimized"])
    files["hf_int8"] = os.path.join(files["workdir"], "hf_int8.onnx")
    quantize_dynamic(files["hf_float32"], files["hf_int8"], weight_type=QuantType.QInt8)
    try:  # Optimum's exporter, where it installs beside this transformers.
        from optimum.onnxruntime import ORTModelForSequenceClassification

        optimum_dir = os.path.join(files["workdir"], "optimum")
        ORTModelForSequenceClassification.from_pretrained(
            files["hf_dir"], export=True
        ).save_pretrained(optimum_dir)
        files["optimum"] = os.path.join(optimum_dir, "model.onnx")
    except ImportError as error:
        print(f"Optimum: not measured ({error})")


def _build_openvino_saved_model(files: dict, saved_model: str) -> None:
    import openvino

    files["openvino_saved_model"] = os.path.join(files["workdir"], "ov_saved_model.xml")
    openvino.save_model(openvino.convert_model(saved_model), files["openvino_saved_model"])


# -- runners: features (+ texts) -> probabilities -----------------------------------------------


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(-1, keepdims=True))
    return shifted / shifted.sum(-1, keepdims=True)


def _ort_runner(path: str, hf_inputs: bool, output: str):
    from albert_tf.export.onnx.runner import ort_session

    session = ort_session(path)

    def run(features, texts):
        if hf_inputs:
            feeds = {
                "input_ids": features["input_word_ids"].astype(np.int64),
                "attention_mask": features["input_mask"].astype(np.int64),
                "token_type_ids": features["input_type_ids"].astype(np.int64),
            }
        else:
            feeds = features
        result = session.run([output], feeds)[0]
        return result if output == "probabilities" else _softmax(result)

    return run


def _openvino_runner(path: str, output_name: str):
    from albert_tf.export.onnx.runner import openvino_compiled

    request = openvino_compiled(path).create_infer_request()

    def run(features, texts):
        results = request.infer(features)
        for port, value in results.items():
            if output_name in port.get_names():
                return np.asarray(value)
        raise KeyError(output_name)

    return run


def _openvino_streams_runner(path: str, output_name: str):
    """OpenVINO's THROUGHPUT hint: a batch split over its streams (one per core here), the
    parts run as concurrent requests (`AsyncInferQueue`), as a server does with requests."""
    import openvino

    from albert_tf.export.onnx.runner import openvino_compiled

    compiled = openvino_compiled(path, hint="THROUGHPUT")
    streams = compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")
    queue = openvino.AsyncInferQueue(compiled, streams)
    port = next(p for p in compiled.outputs if output_name in p.get_names())

    def run(features, texts):
        size = len(texts)
        bounds = np.linspace(0, size, min(streams, size) + 1).astype(int)
        parts = [None] * (len(bounds) - 1)

        def done(request, index):
            parts[index] = np.array(request.get_tensor(port).data)

        queue.set_callback(done)
        for index, (start, end) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
            queue.start_async({k: v[start:end] for k, v in features.items()}, index)
        queue.wait_all()
        return np.concatenate(parts)

    return run


def load_runner(path_name: str, files: dict):
    """The predict function `(features, texts) -> probabilities` of one path."""
    if path_name == "albert_tf saved_model":
        classify = tf.saved_model.load(files["saved_model"]).signatures["classify_text"]
        return lambda features, texts: classify(text_a=tf.constant(texts))["probabilities"].numpy()
    if path_name == "albert_tf onnx float32":
        return _ort_runner(files["albert_tf_float32"], False, "probabilities")
    if path_name == "albert_tf onnx int8":
        return _ort_runner(files["albert_tf_int8"], False, "probabilities")
    if path_name == "openvino albert_tf onnx":
        return _openvino_runner(files["albert_tf_float32"], "probabilities")
    if path_name == "openvino albert_tf onnx streams":
        return _openvino_streams_runner(files["albert_tf_float32"], "probabilities")
    if path_name == "openvino albert_tf saved_model":
        return _openvino_runner(files["openvino_saved_model"], "probabilities")
    if path_name == "hf torch":
        return _torch_runner(files)
    if path_name == "hf ort":
        return _ort_runner(files["hf_float32"], True, "logits")
    if path_name == "hf ort optimizer":
        return _ort_runner(files["hf_optimized"], True, "logits")
    if path_name == "hf ort int8":
        return _ort_runner(files["hf_int8"], True, "logits")
    if path_name == "optimum ort" and "optimum" in files:
        return _ort_runner(files["optimum"], True, "logits")
    return None


def _torch_runner(files: dict):
    import torch
    import transformers

    torch.set_num_threads(os.cpu_count() or 1)
    model = transformers.AlbertForSequenceClassification.from_pretrained(files["hf_dir"]).eval()

    def run(features, texts):
        with torch.no_grad():
            logits = model(
                input_ids=torch.from_numpy(features["input_word_ids"].astype(np.int64)),
                attention_mask=torch.from_numpy(features["input_mask"].astype(np.int64)),
                token_type_ids=torch.from_numpy(features["input_type_ids"].astype(np.int64)),
            ).logits
        return _softmax(logits.numpy())

    return run


def measure(path_names: list[str], files: dict, args) -> dict:
    """Batch-1 and batch-N seconds per path, interleaved, and each path's largest probability
    difference from the SavedModel's on the same batch."""
    texts = long_texts(64, words=2 * args.seq_length)
    featurize = AlbertTextFeatures(files["spm"], args.seq_length)
    features = {k: v.numpy() for k, v in featurize(tf.constant(texts)).items()}
    assert features["input_mask"][: args.batch_size].all(), "texts shorter than seq_length"
    runners = {name: load_runner(name, files) for name in path_names}
    runners = {name: run for name, run in runners.items() if run is not None}

    def batch(size):
        return {k: v[:size] for k, v in features.items()}, texts[:size]

    one, many = batch(1), batch(args.batch_size)
    reference = load_runner("albert_tf saved_model", files)(*batch(4))
    differences = {
        name: float(np.abs(run(*batch(4)) - reference).max()) for name, run in runners.items()
    }
    latencies = interleaved_seconds(
        {name: (lambda r=run: r(*one)) for name, run in runners.items()}, 3, args.calls
    )
    seconds = interleaved_seconds(
        {name: (lambda r=run: r(*many)) for name, run in runners.items()}, 1, args.rounds
    )
    return {"latencies": latencies, "seconds": seconds, "differences": differences}


# -- operator counts ------------------------------------------------------------------------------

FUSED = (
    "Attention",
    "QAttention",
    "MultiHeadAttention",
    "EmbedLayerNormalization",
    "SkipLayerNormalization",
    "LayerNormalization",
    "FastGelu",
    "BiasGelu",
    "Gelu",
    "MatMul",
    "FusedMatMul",
    "DynamicQuantizeMatMul",
    "MatMulInteger",
    "Softmax",
)


def op_counts(files: dict) -> dict[str, dict[str, collections.Counter]]:
    """Node counts per graph: as stored and as ONNX Runtime runs it (level all)."""
    import onnx
    import onnxruntime

    counts = {}
    graphs = {
        "albert_tf float32": "albert_tf_float32",
        "albert_tf int8": "albert_tf_int8",
        "hf torch.onnx.export": "hf_float32",
        "hf + transformer optimizer": "hf_optimized",
        "hf int8": "hf_int8",
    }
    for label, key in graphs.items():
        stored = onnx.load(files[key])
        optimized_path = files[key] + ".ort_optimized.onnx"
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.optimized_model_filepath = optimized_path
        onnxruntime.InferenceSession(files[key], options, providers=["CPUExecutionProvider"])
        counts[label] = {
            "stored": collections.Counter(node.op_type for node in stored.graph.node),
            "runs": collections.Counter(
                node.op_type for node in onnx.load(optimized_path).graph.node
            ),
        }
    return counts


def _print_op_counts(counts: dict) -> None:
    print("\nONNX operator counts (stored -> as ONNX Runtime runs it at level all)")
    for label, both in counts.items():
        stored, runs = both["stored"], both["runs"]
        shown = [
            f"{op} {stored.get(op, 0)}->{runs.get(op, 0)}"
            for op in FUSED
            if stored.get(op) or runs.get(op)
        ]
        total = f"nodes {sum(stored.values())}->{sum(runs.values())}"
        print(f"  {label:28s} {total}; " + ", ".join(shown))


# -- orchestration --------------------------------------------------------------------------------


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="albert_base")
    parser.add_argument("--seq_length", type=int, default=128)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--calls", type=int, default=60, help="batch-1 calls per path")
    parser.add_argument("--rounds", type=int, default=5, help="batch throughput rounds")
    parser.add_argument("--vocab_size", type=int, default=8000, help="pieces of the spm model")
    parser.add_argument("--paths", default=",".join(PATHS))
    parser.add_argument("--processes", type=int, default=0, help="N > 0: each path alone, N turns")
    parser.add_argument("--files_json", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--worker_json", default=None, help=argparse.SUPPRESS)
    return parser.parse_args()


def _isolated(path_names: list[str], files: dict, args) -> dict:
    """Each path alone in a fresh process, `args.processes` turns; pooled figures."""
    pooled = {"latencies": {}, "seconds": {}, "differences": {}}
    files_json = os.path.join(files["workdir"], "files.json")
    with open(files_json, "w", encoding="utf-8") as handle:
        json.dump(files, handle)
    for turn in range(args.processes):
        shift = turn % len(path_names)
        for name in path_names[shift:] + path_names[:shift]:
            out = os.path.join(files["workdir"], f"{turn}_{name.replace(' ', '_')}.json")
            command = [sys.executable, os.path.abspath(__file__), f"--paths={name}"]
            command += [f"--{flag}={getattr(args, flag)}" for flag in ("seq_length", "batch_size")]
            command += [f"--calls={args.calls}", f"--rounds={args.rounds}"]
            command += [f"--files_json={files_json}", f"--worker_json={out}"]
            print(f"turn {turn + 1}/{args.processes}: {name}", flush=True)
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            with open(out, encoding="utf-8") as handle:
                result = json.load(handle)
            for key in ("latencies", "seconds"):
                for path_name, values in result[key].items():
                    pooled[key].setdefault(path_name, []).extend(values)
            pooled["differences"].update(result["differences"])
    return pooled


def main() -> None:
    args = _parse_args()
    path_names = [name for name in args.paths.split(",") if name]
    if args.worker_json:  # One path in its own process (`--processes`).
        with open(args.files_json, encoding="utf-8") as handle:
            files = json.load(handle)
        with open(args.worker_json, "w", encoding="utf-8") as handle:
            json.dump(measure(path_names, files, args), handle)
        # OpenVINO's streams and TensorFlow's threads can abort at interpreter teardown
        # ("Resource deadlock avoided"); the figures are written, so skip it.
        sys.stdout.flush()
        os._exit(0)
    print(
        f"TF_ENABLE_ONEDNN_OPTS={os.environ.get('TF_ENABLE_ONEDNN_OPTS', 'default')}; "
        f"ONEDNN_MAX_CPU_ISA="
        f"{os.environ.get('ONEDNN_MAX_CPU_ISA', 'native')} (TensorFlow and OpenVINO only)"
    )
    import onnxruntime
    import openvino
    import torch

    print(
        f"onnxruntime {onnxruntime.__version__}, openvino {openvino.__version__}, "
        f"torch {torch.__version__}, tensorflow {tf.__version__}"
    )
    with tempfile.TemporaryDirectory() as workdir:
        files = build(workdir, args)
        counts = op_counts(files)
        if args.processes > 0:
            results = _isolated(path_names, files, args)
            args.calls *= args.processes
            args.rounds *= args.processes
        else:
            results = measure(path_names, files, args)
    _print_op_counts(counts)
    _report(args, results)


def _report(args, results: dict) -> None:
    latencies, seconds = results["latencies"], results["seconds"]
    mode = f"{args.processes} processes per path" if args.processes else "one process"
    print(
        f"\n{args.preset}, {args.seq_length} pieces, {mode}: batch-1 latency over "
        f"{args.calls} calls, batch-{args.batch_size} throughput over {args.rounds} rounds"
    )
    header = (
        f"{'path':32s} {'median ms':>10s} {'p99 ms':>8s} {'seq/s @B':>9s}  {'max |p - sm|':>12s}"
    )
    print(header + "  seq/s every round")
    median, rate = {}, {}
    for name in latencies:
        median[name] = 1000 * statistics.median(latencies[name])
        p99 = 1000 * float(np.percentile(latencies[name], 99))
        rate[name] = args.batch_size / statistics.median(seconds[name])
        every = " ".join(f"{args.batch_size / s:.2f}" for s in seconds[name])
        difference = results["differences"].get(name, float("nan"))
        figures = f"{median[name]:10.1f} {p99:8.1f} {rate[name]:9.2f}  {difference:12.1e}"
        print(f"{name:32s} {figures}  {every}")

    def best(names, values, pick):
        present = [(values[name], name) for name in names if name in values]
        return pick(present) if present else (float("nan"), "none")

    ours, peers = best(ALBERT_TF_FLOAT32, median, min), best(HF_FLOAT32, median, min)
    print(
        f"\nfloat32 batch-1: albert_tf {ours[0]:.1f} ms ({ours[1]}) vs HF {peers[0]:.1f} ms "
        f"({peers[1]}): {peers[0] / ours[0]:.2f}x lower (goal 1.2x)"
    )
    ours, peers = best(ALBERT_TF_FLOAT32, rate, max), best(HF_FLOAT32, rate, max)
    print(
        f"float32 batch-{args.batch_size}: albert_tf {ours[0]:.2f} seq/s ({ours[1]}) vs HF "
        f"{peers[0]:.2f} ({peers[1]}): {ours[0] / peers[0]:.2f}x (goal 1.2x)"
    )
    int8, hf_int8 = best(ALBERT_TF_INT8, median, min), best(HF_INT8, median, min)
    float32 = best(ALBERT_TF_FLOAT32, median, min)
    print(
        f"int8 batch-1: albert_tf {int8[0]:.1f} ms vs HF int8 {hf_int8[0]:.1f} ms: "
        f"{hf_int8[0] / int8[0]:.2f}x (goal 1.2x); vs albert_tf's fastest float32 "
        f"{float32[0]:.1f} ms: {float32[0] / int8[0]:.2f}x (goal > 1)"
    )


if __name__ == "__main__":
    main()
