"""`OnnxModel`: an `export_onnx` directory run by ONNX Runtime or OpenVINO on the CPU.

ONNX Runtime: graph optimizations at level all (what ORT does at load: constant folding of
the [CLS] path's weight views, MatMul + Add fusions), the CPU execution provider, `threads`
intra-op threads (default: ORT's, one per physical core). OpenVINO: `read_model` of the same
file, compiled for the CPU with `INFERENCE_PRECISION_HINT=f32`. OpenVINO's default on CPUs with
bfloat16 (AVX512_BF16, AMX) is bf16, which is no float32 result: pass `precision="bf16"` to ask
for it.

Without albert_tf, the files run as any ONNX model:

    import onnxruntime as ort
    session = ort.InferenceSession("sst2_onnx/classifier_float32.onnx")
    session.run(None, {"input_word_ids": ids, "input_mask": mask, "input_type_ids": types})

Illustration (not run):
    model = OnnxModel("/tmp/sst2_onnx")
    model.run_texts(["a gorgeous film"])["labels"]     # array(['positive'], dtype=object)
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence

import numpy as np

from albert_tf.errors import MissingInputError, UserError
from albert_tf.file_names import ONNX_MANIFEST_FILE

RUNTIMES = ("onnxruntime", "openvino")


def ort_session(path: str, threads: int | None = None):
    """An ONNX Runtime CPU session of `path` at graph optimization level all."""
    import onnxruntime  # Optional: the onnx extra.

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads:
        options.intra_op_num_threads = threads
    return onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def openvino_compiled(model, precision: str = "f32", hint: str = "LATENCY"):
    """`model` (a path, or what `openvino.convert_model` returned) compiled for the CPU."""
    import openvino  # Optional: the onnx extra.

    core = openvino.Core()
    if isinstance(model, str):
        model = core.read_model(model)
    config = {"INFERENCE_PRECISION_HINT": precision, "PERFORMANCE_HINT": hint}
    return core.compile_model(model, "CPU", config)


class OnnxModel:
    """One file of an `export_onnx` directory, ready to run.

    Args:
        directory: what `export_onnx` wrote.
        quantization: "float32" or "int8".
        runtime: "onnxruntime" or "openvino" (int8 files: ONNX Runtime's `QAttention` has no
            OpenVINO form).
        threads: ONNX Runtime's intra-op threads (default: one per core).
    """

    def __init__(
        self,
        directory: str,
        quantization: str = "float32",
        runtime: str = "onnxruntime",
        threads: int | None = None,
    ):
        manifest_path = os.path.join(directory, ONNX_MANIFEST_FILE)
        if not os.path.isfile(manifest_path):
            raise MissingInputError(
                f"no {ONNX_MANIFEST_FILE}", where=directory, fix="pass an export_onnx directory"
            )
        with open(manifest_path, encoding="utf-8") as handle:
            self.manifest = json.load(handle)
        files = {entry["quantization"]: entry for entry in self.manifest["files"]}
        if quantization not in files or runtime not in RUNTIMES:
            raise UserError(
                f"no {quantization} file for {runtime}",
                where=directory,
                fix=f"use one of {sorted(files)} with one of {RUNTIMES}",
            )
        self.directory = directory
        self.path = os.path.join(directory, files[quantization]["file"])
        self.input_names = list(files[quantization]["inputs"])
        self.output_names = list(files[quantization]["outputs"])
        self.runtime = runtime
        if runtime == "onnxruntime":
            self._session = ort_session(self.path, threads)
        else:
            self._compiled = openvino_compiled(self.path)
            self._request = self._compiled.create_infer_request()

    def run(self, features: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Outputs by name for int32 id features (`input_word_ids`, `input_mask`,
        `input_type_ids`)."""
        feeds = {name: np.asarray(features[name], np.int32) for name in self.input_names}
        if self.runtime == "onnxruntime":
            names = [output.name for output in self._session.get_outputs()]
            return dict(zip(names, self._session.run(None, feeds), strict=True))
        results = self._request.infer(feeds)
        return {
            _output_name(output, self.output_names): np.asarray(value)
            for output, value in results.items()
        }

    def text_features(self):
        """The pre-step of an encoder or classifier: `AlbertTextFeatures` of the export's
        tokenizer, casing and `seq_length` (TensorFlow and tensorflow-text)."""
        from albert_tf.tokenization.text_features import AlbertTextFeatures  # Loads TensorFlow.

        spm_model_file = self.manifest.get("spm_model_file")
        if not spm_model_file or self.manifest["kind"] not in ("encoder", "classifier"):
            raise UserError(
                f"no text pre-step for this {self.manifest['kind']} export here",
                where=self.directory,
                fix=f"feed ids; the pre-step is {self.manifest['pre_step']}",
            )
        return AlbertTextFeatures(
            os.path.join(self.directory, spm_model_file),
            self.manifest["seq_length"],
            do_lower_case=self.manifest["do_lower_case"],
        )

    def run_texts(
        self, texts: Sequence[str], texts_b: Sequence[str] | None = None
    ) -> dict[str, np.ndarray]:
        """Outputs for raw texts (pairs with `texts_b`), through `text_features`."""
        import tensorflow as tf  # Only for texts: ids run without TensorFlow.

        featurize = self.text_features()
        columns = tf.constant(list(texts))
        if texts_b is not None:
            columns = [columns, tf.constant(list(texts_b))]
        return self.run({name: value.numpy() for name, value in featurize(columns).items()})


def _output_name(output, names: Sequence[str]) -> str:
    """The graph output name among an OpenVINO output's tensor names (it keeps several)."""
    return next((name for name in names if name in output.get_names()), output.get_any_name())
