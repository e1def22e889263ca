"""`LiteRtModel`: runs an exported `.tflite` in the `ai-edge-litert` interpreter, from Python.

Text-in models need tensorflow-text's custom ops registered with the interpreter
(`InterpreterWithCustomOps(custom_op_registerers=tensorflow_text.tflite_registrar
.SELECT_TFTEXT_OPS)`), and their texts normalized first (`normalize_text`, the pre-step);
`run_texts` does both and feeds any number of rows through the model's fixed batch.

Illustration (not run):
    model = LiteRtModel("/tmp/sst2/classifier_text_int8_b1.tflite")
    model.run_texts(["a gorgeous film", "dull"])["label_ids"]  # array([1, 0], dtype=int32)
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

import numpy as np

from albert_tf.export.litert.ops import TFTEXT_CUSTOM_OPS, model_ops
from albert_tf.file_names import LITERT_MANIFEST_FILE
from albert_tf.tokenization.normalize import normalize_text


class LiteRtModel:
    """One `.tflite` file (or its bytes) and its `serving_default` signature.

    Args:
        model: path of the `.tflite` file, or the flatbuffer bytes.
        num_threads: interpreter threads (None: the runtime's default).
    """

    def __init__(self, model: str | os.PathLike | bytes, num_threads: int | None = None):
        from ai_edge_litert.interpreter import InterpreterWithCustomOps  # The litert extra.

        # Casing of the pre-step: from the `litert.json` beside the file, else lowercase.
        self.do_lower_case = True
        if isinstance(model, bytes):
            content = model
        else:
            with open(model, "rb") as handle:
                content = handle.read()
            self.do_lower_case = _manifest_casing(os.path.dirname(os.fspath(model)))
        self.ops = model_ops(content)
        registerers = []
        if any(op in TFTEXT_CUSTOM_OPS for op in self.ops):
            import tensorflow_text  # Only for text-in models: ids run without TensorFlow.

            registerers = list(tensorflow_text.tflite_registrar.SELECT_TFTEXT_OPS)
        self.interpreter = InterpreterWithCustomOps(
            custom_op_registerers=registerers, model_content=content, num_threads=num_threads
        )
        self.runner = self.interpreter.get_signature_runner()
        self.inputs = self.runner.get_input_details()
        self.batch_size = int(next(iter(self.inputs.values()))["shape"][0])

    @property
    def takes_text(self) -> bool:
        """Whether the inputs are strings (`text`, `text_b`) rather than ids."""
        return "text" in self.inputs

    def __call__(self, **inputs) -> dict[str, np.ndarray]:
        """One batch, exactly the model's batch size: input name -> array."""
        return self.runner(**inputs)

    def run(self, **inputs) -> dict[str, np.ndarray]:
        """Any number of rows: pads the last batch (repeating row 0) and drops the padding."""
        rows = len(next(iter(inputs.values())))
        results: dict[str, list[np.ndarray]] = {}
        for start in range(0, rows, self.batch_size):
            batch = {}
            for name, values in inputs.items():
                chunk = np.asarray(values[start : start + self.batch_size])
                missing = self.batch_size - len(chunk)
                if missing:
                    chunk = np.concatenate([chunk, np.repeat(chunk[:1], missing, axis=0)])
                batch[name] = chunk
            for name, value in self(**batch).items():
                results.setdefault(name, []).append(value[: min(self.batch_size, rows - start)])
        return {name: np.concatenate(parts) for name, parts in results.items()}

    def run_texts(
        self,
        texts: Sequence[str],
        texts_b: Sequence[str] | None = None,
        do_lower_case: bool | None = None,
    ) -> dict[str, np.ndarray]:
        """Raw texts: the normalization pre-step (`normalize_text`), then `run`.

        `do_lower_case` defaults to the export's (`litert.json`), else True.
        """
        if do_lower_case is None:
            do_lower_case = self.do_lower_case
        inputs = {"text": _normalized(texts, do_lower_case)}
        if texts_b is not None:
            inputs["text_b"] = _normalized(texts_b, do_lower_case)
        return self.run(**inputs)


def _manifest_casing(directory: str) -> bool:
    path = os.path.join(directory, LITERT_MANIFEST_FILE)
    if not os.path.isfile(path):
        return True
    with open(path, encoding="utf-8") as handle:
        return bool(json.load(handle).get("do_lower_case", True))


def _normalized(texts: Sequence[str], do_lower_case: bool) -> np.ndarray:
    # dtype object, not bytes_: NumPy's fixed-width bytes drop trailing NUL characters.
    encoded = [normalize_text(text, do_lower_case).encode("utf-8") for text in texts]
    array = np.empty(len(encoded), dtype=object)
    array[:] = encoded
    return array
