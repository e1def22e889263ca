"""Trains an ALBERT SentencePiece (unigram) model with the original id layout.

The original recipe (ALBERT README) was:

    spm_train --input all.txt --model_prefix=30k-clean --vocab_size=30000 --pad_id=0 --unk_id=1
      --eos_id=-1 --bos_id=-1 --control_symbols=[CLS],[SEP],[MASK]
      --user_defined_symbols="(,),\\",-,.,–,£,€" --shuffle_input_sentence=true
      --input_sentence_size=10000000 --character_coverage=0.99995 --model_type=unigram

We follow it, with one difference: the trainer sees the text after `normalize_text` (the
same normalization the tokenizer applies before encoding, so the vocabulary matches what it
will be asked to encode). The lines stream into the trainer, which samples them itself as in
the recipe (`input_sentence_size` + `shuffle_input_sentence`: reservoir sampling, memory
bounded by the sample, reproducible from `seed` through SentencePiece's random generator).

`[CLS]`, `[SEP]`, `[MASK]` are written as control symbols, exactly like the released models;
`AlbertTokenizer` turns them into user-defined symbols when it loads a model, so a literal
`[MASK]` in text encodes to the mask id (see tokenizer.py).
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator

import sentencepiece as spm

from albert_tf.errors import UserError
from albert_tf.file_patterns import expand_file_patterns
from albert_tf.output_lock import output_lock
from albert_tf.tokenization.normalize import normalize_text
from albert_tf.tokenization.unspaced_scripts import set_apart_cjk

# Ids 0..4, as in the released ALBERT models.
PAD_PIECE, UNK_PIECE = "<pad>", "<unk>"
CONTROL_SYMBOLS = ("[CLS]", "[SEP]", "[MASK]")
# The original's user-defined symbols (always split off as their own piece), ids 5..12.
ORIGINAL_USER_SYMBOLS = ("(", ")", '"', "-", ".", "–", "£", "€")
# Where the trainer must not let a piece cross (`pretokenization_delimiter`): around each CJK
# character with `cjk_character_pieces`. U+2063 INVISIBLE SEPARATOR: normalization keeps it and
# text holds none.
PIECE_BOUNDARY = "\u2063"


def normalized_lines(files: list[str], do_lower_case: bool) -> Iterator[str]:
    """Yields the normalized non-empty lines of all files (blank lines separate documents):
    the text a SentencePiece model is trained on, here and by `vocabulary_extension`.

    Raises `UserError` naming the first line that is not UTF-8.
    """
    for path in files:
        with open(path, "rb") as handle:  # Decoded line by line, to name the bad line.
            for line_number, raw_line in enumerate(handle, start=1):
                try:
                    line = raw_line.decode("utf-8")
                except UnicodeDecodeError as error:
                    raise UserError(
                        f"not UTF-8 text ({error.reason} at byte {error.start} of the line)",
                        where=f"{path}:{line_number}",
                        fix="convert the file to UTF-8",
                    ) from error
                normalized = normalize_text(line, do_lower_case=do_lower_case)
                if normalized:
                    yield normalized


def train_sentencepiece(
    input_files: list[str],
    model_prefix: str,
    vocab_size: int = 30000,
    do_lower_case: bool = True,
    sample_size: int | None = 10_000_000,
    seed: int = 12345,
    character_coverage: float = 0.99995,
    user_defined_symbols: tuple[str, ...] = ORIGINAL_USER_SYMBOLS,
    control_symbols: tuple[str, ...] = CONTROL_SYMBOLS,
    num_threads: int = 2,
    cjk_character_pieces: bool = False,
    **trainer_options,
) -> str:
    """Trains a unigram SentencePiece model on normalized text; returns the `.model` path.

    Writes `{model_prefix}.model` and `{model_prefix}.vocab`. Training happens under a temporary
    prefix in the same directory, then the files are renamed (`.vocab` first, `.model` last), so
    an interrupted run never leaves a partial model behind.

    Args:
        input_files: text files or globs, one sentence per line (blank lines are skipped).
        model_prefix: output path without extension.
        vocab_size: number of pieces, including the 5 reserved ids and the user symbols.
        do_lower_case: lowercase while normalizing (must match the tokenizer's setting).
        sample_size: train on at most this many lines, which SentencePiece samples
            uniformly (`input_sentence_size`, `shuffle_input_sentence`; None: all lines).
        seed: seed of SentencePiece's randomness, the line sample included.
        character_coverage: share of characters covered by the vocabulary (original: 0.99995).
        user_defined_symbols: pieces always split off (original: `( ) " - . – £ €`).
        control_symbols: ids 2.. after `<pad>`, `<unk>`; keep the default for ALBERT. Passing
            `()` makes a model that `AlbertTokenizer` rejects (used in tests).
        num_threads: trainer threads.
        cjk_character_pieces: no piece spans two CJK characters (ideographs, kana, CJK
            punctuation), as in Chinese BERT's vocabulary: running text then encodes to the
            same piece per character that a character-level tagging file gives, so what
            pretraining learns is what fine-tuning reads. The vocabulary holds at most the
            distinct characters kept plus the other scripts' pieces.
        **trainer_options: extra `SentencePieceTrainer` options (e.g. `max_sentence_length`).

    Returns:
        The path of the `.model` file.

    Example:
        >>> train_sentencepiece(["data/sample.txt"], f"{tmp_dir}/spm", vocab_size=1000)
        '.../spm.model'
    """
    files = expand_file_patterns(input_files)
    if sample_size is not None and sample_size <= 0:
        raise UserError(f"sample_size must be positive or None, got {sample_size}.")
    lines = normalized_lines(files, do_lower_case)
    if cjk_character_pieces:
        lines = (set_apart_cjk(line, PIECE_BOUNDARY) for line in lines)
        trainer_options["pretokenization_delimiter"] = PIECE_BOUNDARY
    first = next(lines, None)
    if first is None:
        raise UserError(f"Input files {files} contain no text.")
    with output_lock(model_prefix):
        return _train(
            itertools.chain([first], lines),
            files,
            model_prefix,
            seed,
            dict(
                vocab_size=vocab_size,
                control_symbols=list(control_symbols),
                user_defined_symbols=list(user_defined_symbols),
                character_coverage=character_coverage,
                num_threads=num_threads,
                # The original recipe's sampling (0: all lines).
                input_sentence_size=sample_size or 0,
                shuffle_input_sentence=True,
                **trainer_options,
            ),
        )


def _train(
    sentences: Iterator[str], files: list[str], model_prefix: str, seed: int, options: dict
) -> str:
    """Trains under a temporary prefix, then renames (`.vocab` first, `.model` last)."""
    output_dir = os.path.dirname(os.path.abspath(model_prefix))
    os.makedirs(output_dir, exist_ok=True)
    temp_dir = tempfile.mkdtemp(prefix=".spm_train_", dir=output_dir)
    temp_prefix = os.path.join(temp_dir, "model")
    try:
        spm.set_random_generator_seed(seed)
        spm.SentencePieceTrainer.train(
            sentence_iterator=sentences,
            model_prefix=temp_prefix,
            model_type="unigram",
            pad_id=0,
            unk_id=1,
            bos_id=-1,
            eos_id=-1,
            minloglevel=2,
            **options,
        )
        os.replace(temp_prefix + ".vocab", model_prefix + ".vocab")
        os.replace(temp_prefix + ".model", model_prefix + ".model")
    except RuntimeError as error:  # SentencePiece's trainer reports bad settings this way.
        raise UserError(
            f"SentencePiece training failed ({' '.join(str(error).split())})",
            where=",".join(files),
            fix="lower --vocab_size or train on more text",
        ) from error
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)
    return model_prefix + ".model"
