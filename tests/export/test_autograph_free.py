"""The traced tokenization and serving functions run without AutoGraph: their Python has no
tensor-dependent control flow, and AutoGraph's conversion of the tokenizer, packing and
tensorflow_text code they call costs about 2 CPU seconds per export (`tf.function(...,
autograph=False)`)."""

from __future__ import annotations

import keras
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.export.serving_module import AlbertServingModule
from albert_tf.export.tfhub.encoder import TfHubEncoder
from albert_tf.export.tfhub.preprocessor import TfHubPreprocessor
from albert_tf.finetune.datasets import traced_once
from albert_tf.models import AlbertEncoder, AlbertPretrainer
from albert_tf.tokenization.text_features import AlbertTextFeatures
from tests.conftest import TINY_ALBERT
from tests.no_autograph import no_autograph


@pytest.fixture(scope="module")
def pretrainer() -> AlbertPretrainer:
    keras.utils.set_random_seed(0)
    return AlbertPretrainer(AlbertEncoder(AlbertConfig(**TINY_ALBERT)))


def test_serving_module_signatures_trace_without_autograph(pretrainer, tiny_model_file):
    module = AlbertServingModule(
        pretrainer.encoder,
        tiny_model_file,
        seq_length=16,
        masked_lm_head=pretrainer.masked_lm_head,
    )
    with no_autograph():
        for function in module.signatures().values():
            function.get_concrete_function()


def test_tfhub_functions_trace_without_autograph(pretrainer, tiny_model_file):
    with no_autograph():
        preprocessor = TfHubPreprocessor(tiny_model_file, seq_length=16, max_seq_length=32)
        preprocessor.__call__.get_concrete_function()
        preprocessor.tokenize.__call__.get_concrete_function()
        TfHubEncoder(pretrainer, tiny_model_file).signatures()


def test_featurizer_traces_without_autograph(tiny_model_file):
    # Held here: traced_once keeps its featurizer through a weak reference only, and a garbage
    # collection before the trace would leave the traced function without it.
    featurizer = AlbertTextFeatures(tiny_model_file, seq_length=16)
    featurize = traced_once(featurizer, [tf.TensorSpec([None], tf.string)])
    with no_autograph():
        featurize.get_concrete_function()
