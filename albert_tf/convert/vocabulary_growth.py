"""Growing a checkpoint to an extended vocabulary (`albert-tf convert --grow_vocabulary`).

`albert-tf tokenizer --extend` appends N pieces to a model of V pieces, every old piece keeping
its id (tokenization/vocabulary_extension.py). A checkpoint of any format the converter reads
(albert_tf run or bundle, Hugging Face directory, TF1 checkpoint, keras-hub preset) grows to
it here, through `albert_tf.models.vocabulary_rows.grow_vocabulary`: the word embedding matrix
[V, E] becomes [V + N, E] and the masked-LM output bias [V] becomes [V + N]; every other
weight, and rows 0 .. V-1, are copied unchanged. So on text without new pieces the grown
model's sequence and pooled outputs are the source's, and its MLM logits over the old ids too
(the new columns are added).

A new row starts as the mean of the rows of the old pieces that spelled the new piece's string
(the old model's segmentation of it, `PieceSpeller`: `▁cardiology` from `▁card io logy`), not
at random; its output bias as the mean of theirs. A string of characters the old model did not
know starts from the `<unk>` row (the spelling's pieces are `<unk>`).

Checked before anything is read or written: the extended model's first pieces are the old
model's (the one shipped with the source, or `spm_model_file`), and the checkpoint's vocabulary
size is the old model's; a fine-tuned task model is refused (grow the pretrained encoder).

Illustration (not run):
    grow_checkpoint("hf", "albert-base-v2", "out/bio.model", "out/grown")
    # out/grown: encoder.keras, pretrainer.keras, albert_config.json (vocab_size 32000),
    # spm.model (the extended model), tokenizer_config.json
"""

from __future__ import annotations

import glob
import logging
import os

import keras

from albert_tf.atomic_files import refuse_existing
from albert_tf.config import AlbertConfig
from albert_tf.convert.convert import load_model, save_model
from albert_tf.convert.keras_hub_preset import preset_tokenizer
from albert_tf.convert.weight_names import split_model
from albert_tf.errors import MissingInputError, UserError
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.models.vocabulary_rows import grow_vocabulary
from albert_tf.tokenization.model_proto import read_model_proto, validate_albert_layout
from albert_tf.tokenization.vocabulary_extension import (
    check_is_extension,
    model_casing,
    new_piece_spellings,
)

# The Hugging Face name of an ALBERT SentencePiece model.
HF_SPM_FILE = "spiece.model"


def _pretrained(model: keras.Model) -> AlbertEncoder | AlbertPretrainer:
    """`model` when it is an encoder or a pretrainer; a fine-tuned task model is refused."""
    if not isinstance(model, AlbertEncoder | AlbertPretrainer):
        raise UserError(
            f"a fine-tuned task model ({type(model).__name__}): its vocabulary is not grown",
            fix="grow the pretrained checkpoint, or pass --heads=no to grow its encoder",
        )
    return model


def source_spm_model(fmt: str, path: str) -> str | None:
    """The SentencePiece model that came with the checkpoint `path` of format `fmt`, if any:
    a bundle's `spm.model`, a preset's vocabulary, Hugging Face's `spiece.model`, else the one
    `*.model` file beside it (e.g. the release's `30k-clean.model`)."""
    found = preset_tokenizer(fmt, path)[0]
    directory = path if os.path.isdir(path) else os.path.dirname(path)
    if found is None and os.path.isfile(os.path.join(directory, HF_SPM_FILE)):
        found = os.path.join(directory, HF_SPM_FILE)
    models = glob.glob(os.path.join(directory, "*.model"))
    return found or (models[0] if len(models) == 1 else None)


def grow_checkpoint(
    from_format: str,
    input_path: str,
    extended_spm_model_file: str,
    output_path: str,
    to_format: str = "albert_tf",
    spm_model_file: str | None = None,
    config: AlbertConfig | str | None = None,
    heads: bool | None = None,
    overwrite: bool = False,
    do_lower_case: bool | None = None,
    seq_length: int | None = None,
) -> str:
    """Writes the checkpoint at `input_path` grown to `extended_spm_model_file`; returns the path.

    Args:
        from_format, input_path, config, heads: the source, as `convert.load_model` reads it.
        extended_spm_model_file: the extension of the source's SentencePiece model.
        output_path: the output directory, written atomically as `to_format`; it ships the
            extended model (an albert_tf output is an encoder bundle plus `pretrainer.keras`).
        spm_model_file: the source's own SentencePiece model; default: the one that came with
            it (`spm.model`, `spiece.model`, the preset's vocabulary, a `*.model` beside a TF1
            checkpoint).
        do_lower_case: the written tokenizer's casing; default: the extended model's.
        overwrite, seq_length: as `convert.save_model`.
    """
    refuse_existing(output_path, overwrite)
    new = read_model_proto(extended_spm_model_file)
    validate_albert_layout(new, extended_spm_model_file)
    old_file = spm_model_file or source_spm_model(from_format, input_path)
    if not old_file:
        raise MissingInputError(
            "no SentencePiece model came with the checkpoint, so its vocabulary cannot be "
            "checked against the extension",
            where=input_path,
            fix="pass the model it was trained with (--spm_model_file)",
        )
    old = read_model_proto(old_file)
    check_is_extension(old, new, old_file, extended_spm_model_file)
    model = load_model(from_format, input_path, config, heads)
    vocab_size = split_model(model)[0].config.vocab_size
    if vocab_size != len(old.pieces):
        raise UserError(
            f"the checkpoint has vocab_size {vocab_size}, but its SentencePiece model {old_file} "
            f"has {len(old.pieces)} pieces: they do not belong together",
            where=input_path,
            fix="pass the SentencePiece model the checkpoint was trained with (--spm_model_file)",
        )
    grown = grow_vocabulary(_pretrained(model), new_piece_spellings(new, len(old.pieces)))
    logging.info(
        "Grew the vocabulary of %s from %d to %d pieces.", input_path, vocab_size, len(new.pieces)
    )
    return save_model(
        grown,
        to_format,
        output_path,
        extended_spm_model_file,
        overwrite,
        model_casing(new) if do_lower_case is None else do_lower_case,
        seq_length,
        bundle=True,
    )
