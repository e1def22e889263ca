"""`export_tfhub`: an ALBERT model as the TF Hub / Kaggle Models pair of SavedModels.

    export_dir/
        preprocessor/   strings -> encoder inputs, `tokenize`, `bert_pack_inputs`
                        (preprocessor.py)
        encoder/        encoder inputs -> pooled/sequence/per-layer outputs, `mlm`; trainable
                        (encoder.py)

Both carry TF Serving warm-up records. The pair is used as TensorFlow's "classify text with
BERT" tutorial uses `albert_en_preprocess` + `albert_en_base` (tf-keras):

    import tensorflow_hub as hub, tensorflow_text  # noqa: F401
    preprocess = hub.KerasLayer(export_dir + "/preprocessor")
    encoder = hub.KerasLayer(export_dir + "/encoder", trainable=True)
    pooled = encoder(preprocess(sentences))["pooled_output"]

What is exported is an `ExportSource` (`load_export_source`): an encoder, a pretrainer (its
encoder gets `mlm`, the masked-LM head) or a fine-tuned task model (its encoder, without the
task head), with the tokenizer and casing that came with it.

Illustration (not run):
    export_tfhub("/tmp/albert_hub", load_export_source("/tmp/pretrain_workdir"))
    '/tmp/albert_hub'
"""

from __future__ import annotations

import os

from albert_tf.atomic_files import atomic_output_directory, refuse_existing
from albert_tf.errors import UserError
from albert_tf.export.export_source import ExportSource
from albert_tf.export.tfhub.encoder import export_tfhub_encoder
from albert_tf.export.tfhub.preprocessor import export_tfhub_preprocessor
from albert_tf.output_lock import output_lock

PREPROCESSOR_SUBDIR = "preprocessor"
ENCODER_SUBDIR = "encoder"
DEFAULT_SEQ_LENGTH = 128  # The published preprocessors' default.


def export_tfhub(
    export_dir: str,
    source: ExportSource,
    seq_length: int | None = None,
    overwrite: bool = False,
) -> str:
    """Writes `export_dir/preprocessor` and `export_dir/encoder`, atomically; returns the path.

    Args:
        export_dir: the directory to create.
        source: the model and what came with it (`albert_tf.export.export_source`); its
            SentencePiece model is required.
        seq_length: the preprocessor's default length; default 128, or the model's
            `max_position_embeddings` when smaller.
        overwrite: replace an existing `export_dir`, once the new one is complete.
    """
    export_dir = os.path.abspath(os.fspath(export_dir))
    with output_lock(export_dir):
        refuse_existing(export_dir, overwrite)  # Before the slow part; checked again at the end.
        if source.spm_model_file is None:
            raise UserError(
                "no SentencePiece model came with the model; pass the one it was trained with "
                "(--spm_model_file)."
            )
        max_positions = source.encoder.config.max_position_embeddings
        with atomic_output_directory(export_dir, overwrite) as temp_dir:
            # The encoder first: it checks the tokenizer against the model.
            export_tfhub_encoder(
                os.path.join(temp_dir, ENCODER_SUBDIR), source.model, source.spm_model_file
            )
            export_tfhub_preprocessor(
                os.path.join(temp_dir, PREPROCESSOR_SUBDIR),
                source.spm_model_file,
                seq_length or min(DEFAULT_SEQ_LENGTH, max_positions),
                max_positions,
                source.do_lower_case,
            )
    return export_dir
