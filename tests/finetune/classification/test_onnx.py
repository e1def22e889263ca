"""The classification run as ONNX: ONNX Runtime and OpenVINO give the SavedModel's outputs.

float32 ONNX (ONNX Runtime and OpenVINO) and OpenVINO reading the SavedModel itself equal the
SavedModel within 1e-4; the int8 file keeps the SavedModel's label on SST-2 dev (872
sentences) and its accuracy within a point.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.export.export_source import load_export_source
from albert_tf.export.onnx.export import export_onnx
from albert_tf.export.onnx.runner import OnnxModel, _output_name, openvino_compiled
from albert_tf.finetune.classification.classification_config import ClassificationConfig
from tests.conftest import SHARED_DATA
from tests.finetune.classification.conftest import NEGATIVE, POSITIVE
from tests.finetune.conftest import finished_run, write_lines

pytestmark = pytest.mark.slow  # Needs the trained classification run; exports.

TEXTS = POSITIVE + NEGATIVE + ["an unseen sentence , with café and [MASK]", "", "ok"]
TOLERANCE = 1e-4


SST2_DIR = SHARED_DATA / "glue" / "SST-2"
TRAIN_ROWS = 4000


def sst2_rows(name: str) -> list[dict[str, str]]:
    with open(SST2_DIR / name, encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


@pytest.fixture(scope="module")
def sst2_run(tmp_path_factory, tiny_run_settings):
    """The tiny model fine-tuned for one epoch on the first 4,000 SST-2 train sentences (59%
    on dev, the majority class being 51%: a classifier whose labels mean something, in ~8 s),
    with its SavedModel."""
    data_dir = tmp_path_factory.mktemp("sst2_data")
    rows = sst2_rows("train.tsv")[:TRAIN_ROWS]
    lines = ["sentence\tlabel"] + [f"{row['sentence']}\t{row['label']}" for row in rows]
    write_lines(data_dir / "train.tsv", lines)
    settings = tiny_run_settings(48, 32, 5e-3, 1, export_saved_model=True)
    config = ClassificationConfig(task="sst-2", data_dir=str(data_dir), **settings)
    config = config.replace(do_eval=False, do_predict=False)
    return finished_run(tmp_path_factory, config, "sst2_int8")


@pytest.fixture(scope="module")
def onnx_dir(finetuned_run, tmp_path_factory) -> str:
    output_dir, _ = finetuned_run
    return export_onnx(
        str(tmp_path_factory.mktemp("onnx") / "sst2"), load_export_source(output_dir)
    )


@pytest.fixture(scope="module")
def served(finetuned_run):
    return tf.saved_model.load(finetuned_run[1]["saved_model"])


def assert_classifier_outputs(actual: dict, expected: dict) -> float:
    """Same labels and ids, logits and probabilities within `TOLERANCE`; the worst difference."""
    worst = 0.0
    for name in ("logits", "probabilities"):
        difference = np.abs(np.asarray(actual[name]) - expected[name].numpy()).max()
        assert difference <= TOLERANCE, (name, difference)
        worst = max(worst, float(difference))
    np.testing.assert_array_equal(actual["label_ids"], expected["label_ids"].numpy())
    labels = [label.decode() for label in expected["labels"].numpy()]
    assert [str(label) for label in actual["labels"]] == labels
    return worst


@pytest.mark.slow  # Over 5 s: builds on the classification run.
@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_float32_onnx_matches_saved_model(onnx_dir, served, runtime):
    model = OnnxModel(onnx_dir, runtime=runtime)
    features = model.text_features()(tf.constant(TEXTS))
    expected = served.signatures["serving_default"](**features)
    actual = model.run({name: value.numpy() for name, value in features.items()})
    print(f"worst |difference| {runtime}: {assert_classifier_outputs(actual, expected):.2e}")
    text_outputs = model.run_texts(TEXTS)
    np.testing.assert_array_equal(text_outputs["label_ids"], actual["label_ids"])


@pytest.mark.slow  # Over 5 s: builds on the classification run.
def test_openvino_reads_the_saved_model(finetuned_run, served, onnx_dir):
    import openvino

    compiled = openvino_compiled(openvino.convert_model(finetuned_run[1]["saved_model"]))
    features = OnnxModel(onnx_dir).text_features()(tf.constant(TEXTS))
    expected = served.signatures["serving_default"](**features)
    results = compiled.create_infer_request().infer({k: v.numpy() for k, v in features.items()})
    names = ("logits", "probabilities", "label_ids", "labels")
    actual = {_output_name(output, names): value for output, value in results.items()}
    print(f"worst |difference|: {assert_classifier_outputs(actual, expected):.2e}")


@pytest.mark.slow  # Over 5 s: fine-tunes on SST-2; 872 sentences through both models.
def test_int8_keeps_the_labels_on_sst2_dev(sst2_run, tmp_path):
    output_dir, results = sst2_run
    onnx_dir = export_onnx(str(tmp_path / "onnx"), load_export_source(output_dir), ["int8"])
    rows = sst2_rows("dev.tsv")
    texts, gold = [row["sentence"] for row in rows], np.array([int(r["label"]) for r in rows])
    served = tf.saved_model.load(results["saved_model"])
    float_ids = served.signatures["classify_text"](text_a=tf.constant(texts))["label_ids"].numpy()
    int8_ids = OnnxModel(onnx_dir, quantization="int8").run_texts(texts)["label_ids"]
    agreement = float((int8_ids == float_ids).mean())
    accuracy = float((float_ids == gold).mean())
    points = 100 * (float((int8_ids == gold).mean()) - accuracy)
    print(f"SST-2 dev: accuracy {accuracy:.4f}, int8 agreement {agreement:.4f} ({points:+.2f})")
    assert accuracy > 0.55  # It learned something: agreement is no formality.
    assert agreement >= 0.99
    assert points >= -1.0
