"""LiteRT conversion: every variant runs in ai-edge-litert, float32 == Keras, text-in ids ==
AlbertTokenizer, the op check names Flex ops."""

import numpy as np
import pytest
import tensorflow as tf

pytest.importorskip("ai_edge_litert")

from albert_tf.config import AlbertConfig  # noqa: E402
from albert_tf.errors import UserError  # noqa: E402
from albert_tf.export.litert.converter import (  # noqa: E402
    classifier_outputs,
    convert,
    encoder_outputs,
    ids_model,
    text_model,
    write_model,
)
from albert_tf.export.litert.ops import check_ops, model_ops, unsupported_ops  # noqa: E402
from albert_tf.export.litert.runner import LiteRtModel  # noqa: E402
from albert_tf.models import AlbertEncoder  # noqa: E402
from albert_tf.models.classifier import AlbertClassifier  # noqa: E402
from albert_tf.tokenization import AlbertTokenizer  # noqa: E402
from albert_tf.tokenization.text_packing import pack_segments_reference  # noqa: E402
from tests.conftest import SAMPLE_TEXT, TINY_ALBERT  # noqa: E402
from tests.export.litert.conftest import FEATURES, SEQ_LENGTH, keras_outputs  # noqa: E402
from tests.tokenization.conftest import HARD_STRINGS  # noqa: E402


@pytest.fixture(scope="module")
def lt_tokenizer(tiny_model_file) -> AlbertTokenizer:
    return AlbertTokenizer(tiny_model_file)


@pytest.fixture(scope="module")
def test_strings() -> list[str]:
    """The tokenizer tests' sentences: every line of data/sample.txt and the hard cases."""
    return SAMPLE_TEXT.read_text(encoding="utf-8").split("\n") + HARD_STRINGS


def _random_features(batch: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(3, SEQ_LENGTH + 1, size=batch)
    mask = (np.arange(SEQ_LENGTH)[None, :] < lengths[:, None]).astype(np.int32)
    ids = rng.integers(5, TINY_ALBERT["vocab_size"], size=(batch, SEQ_LENGTH)) * mask
    types = ((np.arange(SEQ_LENGTH)[None, :] >= lengths[:, None] // 2) * mask).astype(np.int32)
    return {"input_word_ids": ids.astype(np.int32), "input_mask": mask, "input_type_ids": types}


@pytest.mark.parametrize("batch_size", [1, 3])
def test_ids_encoder_float32_equalskeras_outputs(lt_encoder, batch_size, tmp_path):
    flatbuffer = ids_model(lt_encoder, SEQ_LENGTH, batch_size, outputs=encoder_outputs)
    path = write_model(str(tmp_path / "encoder.tflite"), flatbuffer)
    model = LiteRtModel(path)
    assert model.batch_size == batch_size and not model.takes_text
    assert not unsupported_ops(model.ops, allowed_custom_ops=frozenset())  # Builtin only.
    features = _random_features(5)
    got = model.run(**features)  # 5 rows through the fixed batch (last batch padded).
    want = keras_outputs(lt_encoder, features, encoder_outputs)
    assert got["sequence_output"].shape == (5, SEQ_LENGTH, TINY_ALBERT["hidden_size"])
    for name in ("pooled_output", "sequence_output"):
        np.testing.assert_allclose(got[name], want[name], atol=1e-4, rtol=0)


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
@pytest.mark.parametrize(("quantization", "atol"), [("float16", 1e-2), ("int8", 0.15)])
def test_quantized_classifier_runs_close_tokeras_outputs(lt_classifier, quantization, atol):
    float32 = ids_model(lt_classifier, SEQ_LENGTH, 2, outputs=classifier_outputs)
    quantized = ids_model(lt_classifier, SEQ_LENGTH, 2, quantization, classifier_outputs)
    assert len(quantized) < 0.75 * len(float32)
    features = _random_features(4, seed=1)
    got = LiteRtModel(quantized).run(**features)
    want = keras_outputs(lt_classifier, features, classifier_outputs)
    np.testing.assert_allclose(got["logits"], want["logits"], atol=atol, rtol=0)
    np.testing.assert_allclose(got["probabilities"].sum(-1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(got["label_ids"], got["logits"].argmax(-1))


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_text_in_ids_equal_albert_tokenizer(
    lt_encoder, lt_tokenizer, tiny_model_file, test_strings
):
    flatbuffer = text_model(lt_encoder, tiny_model_file, SEQ_LENGTH, 8, outputs=encoder_outputs)
    model = LiteRtModel(flatbuffer)
    assert model.takes_text and "TFText>FastSentencepieceTokenize" in model.ops
    assert not [op for op in model.ops if op.startswith("Flex")]
    got = model.run_texts(test_strings)
    want = [
        pack_segments_reference(lt_tokenizer.encode(text), [], SEQ_LENGTH, 2, 3)
        for text in test_strings
    ]
    for name in FEATURES:
        mismatches = [
            (text, got[name][i].tolist(), row[name])
            for i, (text, row) in enumerate(zip(test_strings, want, strict=True))
            if got[name][i].tolist() != row[name]
        ]
        assert not mismatches, mismatches[:3]
    # Model outputs on those ids equal the Keras encoder's.
    sample = {name: got[name][-len(HARD_STRINGS) :] for name in FEATURES}
    want_outputs = keras_outputs(lt_encoder, sample, encoder_outputs)
    for name in ("pooled_output", "sequence_output"):
        np.testing.assert_allclose(
            got[name][-len(HARD_STRINGS) :], want_outputs[name], atol=1e-4, rtol=0
        )


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_text_pair_classifier_int8(lt_classifier, lt_tokenizer, tiny_model_file):
    flatbuffer = text_model(
        lt_classifier, tiny_model_file, SEQ_LENGTH, 2, "int8", classifier_outputs, is_pair=True
    )
    model = LiteRtModel(flatbuffer)
    long_text = " ".join(["the history of the valkyria series continues"] * 5)
    texts_a = ["A man plays.", long_text, "Café NAÏVE [MASK]", ""]
    texts_b = ["A person plays music.", "short", long_text, ""]
    got = model.run_texts(texts_a, texts_b)
    for i, (a, b) in enumerate(zip(texts_a, texts_b, strict=True)):
        want = pack_segments_reference(
            lt_tokenizer.encode(a), lt_tokenizer.encode(b), SEQ_LENGTH, 2, 3
        )
        for name in FEATURES:
            assert got[name][i].tolist() == want[name], (a, b, name)
    assert got["logits"].shape == (4, 3)
    assert np.isfinite(got["logits"]).all()


def test_op_check_fails_on_flex_op():
    def lower(text):
        return {"lowered": tf.strings.lower(text)}

    with pytest.raises(UserError, match="FlexStringLower"):
        convert(lower, [tf.TensorSpec([1], tf.string)], [], where="lower")


@pytest.mark.slow  # Over 5 s: a subprocess starting TensorFlow.
def test_op_check_lists_ops_and_rejects_unregistered_custom_ops(lt_encoder):
    flatbuffer = ids_model(lt_encoder, SEQ_LENGTH, 1)
    ops = check_ops(flatbuffer, "encoder", allowed_custom_ops=frozenset())
    assert ops == model_ops(flatbuffer)
    assert {"FULLY_CONNECTED", "GATHER"} <= set(ops)
    assert unsupported_ops(["GATHER", "TFText>FastSentencepieceTokenize"], frozenset()) == [
        "TFText>FastSentencepieceTokenize"
    ]
    with pytest.raises(UserError, match="unregistered custom ops RaggedGather"):
        check_ops(_with_custom_op(flatbuffer, "RaggedGather"), "x", frozenset())


def _with_custom_op(flatbuffer: bytes, name: str) -> bytes:
    """The model with its first operator code turned into the custom op `name`."""
    from ai_edge_litert import schema_py_generated as schema

    model = schema.ModelT.InitFromObj(schema.Model.GetRootAs(flatbuffer, 0))
    model.operatorCodes[0].builtinCode = schema.BuiltinOperator.CUSTOM
    model.operatorCodes[0].deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
    model.operatorCodes[0].customCode = name
    import flatbuffers

    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def test_bad_arguments(lt_encoder, tmp_path):
    with pytest.raises(UserError, match="unknown quantization 'int4'"):
        ids_model(lt_encoder, SEQ_LENGTH, 1, "int4")
    with pytest.raises(UserError, match="seq_length 2"):
        ids_model(lt_encoder, 2, 1)
    path = tmp_path / "exists.tflite"
    path.write_bytes(b"x")
    with pytest.raises(FileExistsError):
        write_model(str(path), b"y")


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_mixed_precision_model_exports_in_float32(lt_classifier):
    from albert_tf.export.litert.converter import float32_model

    encoder = AlbertEncoder(AlbertConfig(**TINY_ALBERT), dtype="mixed_bfloat16")
    mixed = AlbertClassifier(encoder, num_outputs=3, dtype="mixed_bfloat16")
    mixed.set_weights(lt_classifier.get_weights())
    copy = float32_model(mixed)
    assert copy is not mixed and copy.encoder.embeddings.dtype_policy.name == "float32"
    assert float32_model(lt_classifier) is lt_classifier
    # Without the float32 copy, bfloat16 math would be Flex ops and the op check would fail.
    model = LiteRtModel(ids_model(mixed, SEQ_LENGTH, 2, outputs=classifier_outputs))
    features = _random_features(2, seed=2)
    got = model(**features)["logits"]
    np.testing.assert_allclose(
        got, keras_outputs(lt_classifier, features, classifier_outputs)["logits"], atol=1e-4, rtol=0
    )
