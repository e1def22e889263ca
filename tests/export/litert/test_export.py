"""`export_litert`: a run's or an encoder's variants and `litert.json`, by the function and by
the command; file names and outputs follow the model's kind."""

import pytest

pytest.importorskip("ai_edge_litert")

import numpy as np  # noqa: E402

from albert_tf.export.export_source import ExportSource, load_export_source  # noqa: E402
from albert_tf.export.litert.converter import (  # noqa: E402
    classifier_outputs,
    default_outputs,
    encoder_outputs,
)
from albert_tf.export.litert.export import export_litert, litert_outputs  # noqa: E402
from albert_tf.export.litert.runner import LiteRtModel  # noqa: E402
from albert_tf.models import (  # noqa: E402
    AlbertClassifier,
    AlbertPretrainer,
    AlbertTokenClassifier,
)
from albert_tf.tokenization import AlbertTokenizer  # noqa: E402
from albert_tf.tokenization.text_packing import pack_segments_reference  # noqa: E402
from tests.conftest import TINY_ALBERT  # noqa: E402
from tests.export.litert.conftest import FEATURES, SEQ_LENGTH, keras_outputs  # noqa: E402


def test_each_kind_gets_its_outputs(lt_encoder):
    pretrainer = ExportSource(AlbertPretrainer(lt_encoder))
    assert pretrainer.kind == "encoder" and pretrainer.encoder is lt_encoder
    assert litert_outputs(pretrainer) is encoder_outputs
    assert litert_outputs(ExportSource(AlbertClassifier(lt_encoder, 2))) is classifier_outputs
    regression = ExportSource(AlbertClassifier(lt_encoder, 1), task={"problem": "regression"})
    assert litert_outputs(regression) is default_outputs
    tagger = ExportSource(AlbertTokenClassifier(lt_encoder, 3))
    assert tagger.kind == "tagging" and litert_outputs(tagger) is default_outputs


def _fake_run_dir(directory, classifier, spm_file) -> str:
    """A fine-tuning output directory as run_classifier leaves it (no training needed)."""
    import json
    import shutil

    directory.mkdir()
    classifier.save(str(directory / "model.keras"))
    shutil.copyfile(spm_file, directory / "spm.model")
    task = {
        "task": "mnli",
        "problem": "classification",
        "labels": ["a", "b", "c"],
        "max_seq_length": SEQ_LENGTH,
        "do_lower_case": False,
        "is_pair": True,
    }
    (directory / "task.json").write_text(json.dumps(task), encoding="utf-8")
    return str(directory)


@pytest.mark.slow  # Over 5 s: a subprocess starting TensorFlow.
def test_export_litert_from_a_run_dir(lt_classifier, tiny_model_file, tmp_path):
    import json

    run_dir = _fake_run_dir(tmp_path / "run", lt_classifier, tiny_model_file)
    source = load_export_source(run_dir)
    out = export_litert(
        str(tmp_path / "litert"), source, batch_sizes=[1, 2], quantizations=["float32"]
    )
    manifest = json.loads((tmp_path / "litert" / "litert.json").read_text())
    assert manifest["seq_length"] == SEQ_LENGTH and manifest["labels"] == ["a", "b", "c"]
    files = sorted(entry["file"] for entry in manifest["models"])
    assert files == [f"classifier_{i}_float32_b{b}.tflite" for i in ("ids", "text") for b in (1, 2)]
    text = next(e for e in manifest["models"] if e["file"] == "classifier_text_float32_b2.tflite")
    assert text["inputs"] == ["text", "text_b"] and "label_ids" in text["outputs"]
    model = LiteRtModel(f"{out}/classifier_text_float32_b2.tflite")
    texts_a, texts_b = ["A Man plays", "x", "Y"], ["a person PLAYS music", "", "z"]
    got = model.run_texts(texts_a, texts_b)  # Cased, as litert.json says.
    assert model.do_lower_case is False
    cased = AlbertTokenizer(tiny_model_file, do_lower_case=False)
    for i, (a, b) in enumerate(zip(texts_a, texts_b, strict=True)):
        want = pack_segments_reference(cased.encode(a), cased.encode(b), SEQ_LENGTH, 2, 3)
        assert got["input_word_ids"][i].tolist() == want["input_word_ids"]
    features = {name: got[name] for name in FEATURES}
    want = keras_outputs(lt_classifier, features, classifier_outputs)
    np.testing.assert_allclose(got["logits"], want["logits"], atol=1e-4, rtol=0)
    with pytest.raises(FileExistsError):
        export_litert(out, source, quantizations=["float32"], inputs=["ids"])


@pytest.mark.slow  # Over 5 s: a subprocess starting TensorFlow.
def test_export_litert_script(lt_encoder, tiny_model_file, tmp_path):
    from albert_tf.export.encoder_bundle import save_encoder_bundle
    from tests import commands
    from tests.commands import command_line

    bundle = save_encoder_bundle(str(tmp_path / "bundle"), lt_encoder, tiny_model_file)
    out = tmp_path / "litert"
    args = command_line("export-litert", f"--source={bundle}", f"--output_dir={out}")
    done = commands.run([*args, "--quantizations=int8", "--inputs=text", "--seq_length=16"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in out.iterdir()) == ["encoder_text_int8_b1.tflite", "litert.json"]
    result = LiteRtModel(str(out / "encoder_text_int8_b1.tflite")).run_texts(["hello world"])
    assert result["sequence_output"].shape == (1, 16, TINY_ALBERT["hidden_size"])
    bad = commands.run([*args, "--overwrite", "--quantizations=int4"])
    assert bad.returncode == 2 and "error: unknown or no values ['int4']" in bad.stderr
