"""`extend_sentencepiece`: append N domain pieces to an ALBERT SentencePiece model, old ids kept.

A released ALBERT model is full (30,000 pieces, no unused slots), so a domain's words shatter
into many pieces. Extension writes a model whose first V pieces are the old model's exactly
(piece, id, score, type), with the old normalizer, trainer settings and id layout, and N new
pieces appended as ids V .. V+N-1; a checkpoint then grows to it
(`albert_tf.convert.vocabulary_growth`).

How the new pieces are chosen:

1. Candidates: a unigram model trained on the domain text (normalized as `train_sentencepiece`
   does) with the old model's normalization rule, user-defined and control symbols and piece
   shape settings (`max_sentencepiece_length`, the `split_by_*` rules, `character_coverage`),
   sized to every character the coverage keeps plus 2N (4N, 8N when too few are new).
   A model whose normalizer is not a built-in rule (e.g. a keras-hub preset's, with ALBERT's
   normalization compiled in) cannot be reproduced: refused, as are other model types and
   an id layout other than ALBERT's.
2. The candidates that are not old pieces are ranked: first the characters the old model
   lacks (it reads them as `<unk>`: their information is lost, not just spread over more
   pieces), most frequent in the domain text first, as SentencePiece itself keeps every
   character its coverage needs; then the other candidates by the pieces they save on the
   domain text: their uses in the candidate model's segmentation of it times (the number of
   old pieces that spell them, an unknown character counted as one, minus one). The top N
   are appended in that order.
3. Scores: a new piece scores what its old spelling scored (the sum of its old pieces'
   scores, `PieceSpeller`) plus `NEW_PIECE_MARGIN`, so it wins the string it spells, clipped
   to the old normal pieces' score range. The clip keeps the old model's behavior on old
   text: SentencePiece derives the unknown-character score from the lowest normal score and
   the user-symbol bonus from the highest, so a new piece outside the range would change how
   old text with unknown characters or user symbols is cut.

Consequence (measured by `compare_segmentations` and reported): the Viterbi path over the old
pieces keeps its score, so a text's ids change only where a path through a new piece scores
higher: every word either keeps its old ids or its new ids hold a new piece. The report gives
the share of words whose ids are unchanged on the domain text and on general text of the kind
the model was trained on, with pieces per word and per character before and after.

Illustration (not run):
    extension = extend_sentencepiece("30k-clean.model", ["bio/*.txt"], 2000, "out/bio")
    extension.report["domain"]["pieces_per_word"]
    {'before': 1.71, 'after': 1.38}
"""

from __future__ import annotations

import collections
import dataclasses
import io
import itertools
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2

from albert_tf.errors import UserError
from albert_tf.file_patterns import expand_file_patterns
from albert_tf.output_lock import output_lock
from albert_tf.tokenization.model_proto import read_model_proto, validate_albert_layout
from albert_tf.tokenization.piece_spelling import PieceSpeller, normal_score_range
from albert_tf.tokenization.segmentation_report import compare_segmentations
from albert_tf.tokenization.train import normalized_lines

_Piece = sentencepiece_model_pb2.ModelProto.SentencePiece
# How much a new piece outscores the old pieces that spell its string.
NEW_PIECE_MARGIN = 0.01
REPORT_SUFFIX = ".extension.json"
# The trainer settings that shape pieces, copied from the old model to the candidates'.
_SHAPE_SETTINGS = (
    "character_coverage",
    "max_sentencepiece_length",
    "split_by_unicode_script",
    "split_by_number",
    "split_by_whitespace",
    "split_digits",
    "treat_whitespace_as_suffix",
    "allow_whitespace_only_pieces",
)
# SentencePiece's own normalization rules: candidates can be trained under these only.
BUILT_IN_RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf", "identity")
_NORMALIZER_SETTINGS = ("add_dummy_prefix", "remove_extra_whitespaces", "escape_whitespaces")


@dataclasses.dataclass(frozen=True)
class Extension:
    """What `extend_sentencepiece` wrote.

    Attributes:
        model_file: the extended `.model` (its `.vocab` and `.extension.json` report beside it).
        old_size: V, the old model's number of pieces: new ids start there.
        new_pieces: the appended pieces, in id order.
        report: the segmentation figures (see the module docstring), as in the report file.
    """

    model_file: str
    old_size: int
    new_pieces: tuple[str, ...]
    report: dict


def extend_sentencepiece(
    model_file: str,
    input_files: list[str],
    new_pieces: int,
    model_prefix: str,
    general_files: list[str] | None = None,
    do_lower_case: bool | None = None,
    sample_size: int | None = 10_000_000,
    seed: int = 12345,
    num_threads: int = 2,
    report_lines: int = 100_000,
) -> Extension:
    """Writes `{model_prefix}.model` (and `.vocab`, `.extension.json`): the model of `model_file`
    with `new_pieces` pieces of the domain text `input_files` appended.

    Every check (the ALBERT id layout, a unigram model, a reproducible normalization, the
    casing) runs before anything is trained or written; the files are renamed into place at
    the end (`.model` last), so an interrupted run leaves no model behind.

    Args:
        model_file: the existing ALBERT SentencePiece model.
        input_files: domain text files or globs, one sentence per line.
        new_pieces: N, the number of pieces to append.
        model_prefix: output path without extension.
        general_files: text of the kind the model was trained on, for the report only.
        do_lower_case: lowercase while normalizing; None: as the model was trained (uncased
            when none of its pieces holds a capital letter). A value contradicting the model
            is refused.
        sample_size: train the candidates on at most this many lines (None: all).
        seed: seed of the candidate training's randomness.
        num_threads: trainer and encoder threads.
        report_lines: the report and the ranking read the first this many lines of each text.
    """
    if new_pieces < 1:
        raise UserError(f"new_pieces must be positive, got {new_pieces}", where="--new_pieces")
    old = read_model_proto(model_file)
    check_extendable(old, model_file)
    do_lower_case = _casing(old, model_file, do_lower_case)
    files = expand_file_patterns(input_files)
    general = expand_file_patterns(general_files) if general_files else []
    domain_lines = list(itertools.islice(normalized_lines(files, do_lower_case), report_lines))
    if not domain_lines:
        raise UserError(f"Input files {files} contain no text.")
    old_size = len(old.pieces)
    speller = PieceSpeller(old)
    old_pieces = {piece.piece for piece in old.pieces}
    characters = _character_counts(files, do_lower_case)
    required = _required_characters(characters, old.trainer_spec.character_coverage)
    for multiple in (2, 4, 8):
        candidates = _train_candidates(
            old,
            model_file,
            normalized_lines(files, do_lower_case),
            size=required + multiple * new_pieces,
            sample_size=sample_size,
            seed=seed,
            num_threads=num_threads,
        )
        ranked = _rank(candidates, old_pieces, speller, domain_lines, characters, num_threads)
        if len(ranked) >= new_pieces:
            break
    if len(ranked) < new_pieces:
        raise UserError(
            f"the domain text yields only {len(ranked)} pieces that are not in the model",
            where=",".join(files),
            fix=f"pass at most --new_pieces={len(ranked)}, or more domain text",
        )
    extended = _append(old, ranked[:new_pieces], speller)
    report = _report(
        old, extended, model_file, domain_lines, general, do_lower_case, num_threads, report_lines
    )
    _write(extended, model_prefix, report)
    logging.info("Extended %s by %d pieces: %s.model", model_file, new_pieces, model_prefix)
    return Extension(
        model_prefix + ".model",
        old_size,
        tuple(p.piece for p in extended.pieces[old_size:]),
        report,
    )


def check_extendable(proto: sentencepiece_model_pb2.ModelProto, source: str) -> None:
    """Raises `UserError` unless `proto` is an ALBERT unigram model with a built-in
    normalization rule (what extension needs)."""
    validate_albert_layout(proto, source)
    rule = proto.normalizer_spec.name
    if rule not in BUILT_IN_RULES:
        raise UserError(
            f"the model's normalization {rule!r} is not a built-in SentencePiece rule, so "
            "candidate pieces cannot be trained under it (a keras-hub preset's vocabulary.spm "
            "has ALBERT's normalization compiled in)",
            where=source,
            fix="extend the model the tokenizer was trained as (the release's 30k-clean.model, "
            "an albert_tf spm.model, a Hugging Face spiece.model)",
        )
    model_type = proto.trainer_spec.model_type
    if model_type != sentencepiece_model_pb2.TrainerSpec.UNIGRAM:
        name = sentencepiece_model_pb2.TrainerSpec.ModelType.Name(model_type)
        raise UserError(
            f"a {name} SentencePiece model: extension appends pieces to unigram models "
            "(ALBERT's) only",
            where=source,
            fix="extend the unigram model the checkpoint was trained with",
        )


def check_is_extension(
    old: sentencepiece_model_pb2.ModelProto,
    new: sentencepiece_model_pb2.ModelProto,
    old_source: str,
    new_source: str,
) -> None:
    """Raises `UserError` unless `new`'s first pieces are `old`'s (string and score), in order,
    and `new` has more."""
    if len(new.pieces) <= len(old.pieces):
        raise UserError(
            f"{new_source} has {len(new.pieces)} pieces, no more than the {len(old.pieces)} of "
            f"{old_source}: not an extension of it",
            fix="pass the model albert-tf tokenizer --extend wrote",
        )
    for piece_id, (a, b) in enumerate(zip(old.pieces, new.pieces, strict=False)):
        if a.piece != b.piece or a.score != b.score:
            raise UserError(
                f"{new_source} is not an extension of {old_source}: id {piece_id} is "
                f"{b.piece!r} (score {b.score:g}) there, {a.piece!r} (score {a.score:g}) here",
                fix="extend the SentencePiece model this checkpoint was trained with",
            )


def new_piece_spellings(
    proto: sentencepiece_model_pb2.ModelProto, old_size: int
) -> list[tuple[int, ...]]:
    """Per new piece of the extension `proto` (ids from `old_size` on), the old ids that spelled
    its string (`PieceSpeller`): a grown checkpoint's new rows start from theirs."""
    speller = PieceSpeller(proto, old_size)
    return [speller.spell(piece.piece).ids for piece in proto.pieces[old_size:]]


def _has_capitals(proto: sentencepiece_model_pb2.ModelProto) -> list[str]:
    return [p.piece for p in proto.pieces if p.type == _Piece.NORMAL and p.piece != p.piece.lower()]


def model_casing(proto: sentencepiece_model_pb2.ModelProto) -> bool:
    """`do_lower_case` of the text the model was trained on: True when no piece holds a capital."""
    return not _has_capitals(proto)


def _casing(proto, source: str, do_lower_case: bool | None) -> bool:
    """The casing to normalize the domain text with: the model's; a contradiction is refused."""
    capitals = _has_capitals(proto)
    if do_lower_case is None:
        return not capitals
    if do_lower_case and capitals:
        raise UserError(
            f"--do_lower_case=true, but the model is cased ({len(capitals)} pieces hold "
            f"capitals, e.g. {capitals[0]!r})",
            where=source,
            fix="pass --do_lower_case=false (or leave it out: the model's casing is used)",
        )
    cased_letters = any(
        p.type == _Piece.NORMAL and p.piece != p.piece.upper() for p in proto.pieces
    )
    if not do_lower_case and not capitals and cased_letters:
        raise UserError(
            "--do_lower_case=false, but the model is uncased (no piece holds a capital)",
            where=source,
            fix="pass --do_lower_case=true (or leave it out: the model's casing is used)",
        )
    return do_lower_case


def _character_counts(files: list[str], do_lower_case: bool) -> collections.Counter:
    """How often each character occurs in the normalized text (spaces left out)."""
    counts: collections.Counter = collections.Counter()
    for line in normalized_lines(files, do_lower_case):
        counts.update(line.replace(" ", ""))
    return counts


def _required_characters(counts: collections.Counter, coverage: float) -> int:
    """How many distinct characters a `character_coverage` keeps of the text."""
    total, kept, covered = sum(counts.values()), 0, 0
    for _, count in counts.most_common():
        if covered >= coverage * total:
            break
        covered += count
        kept += 1
    return kept


def _train_candidates(
    old: sentencepiece_model_pb2.ModelProto,
    source: str,
    lines: Iterator[str],
    size: int,
    sample_size: int | None,
    seed: int,
    num_threads: int,
) -> sentencepiece_model_pb2.ModelProto:
    """A unigram model of the domain text, normalized and shaped like `old`."""
    spec, trainer = old.normalizer_spec, old.trainer_spec
    kinds = {_Piece.CONTROL: [], _Piece.USER_DEFINED: []}
    for piece in old.pieces:
        if piece.type in kinds and piece.piece not in ("<pad>", "<unk>"):
            kinds[piece.type].append(piece.piece)
    reserved = 2 + len(kinds[_Piece.CONTROL]) + len(kinds[_Piece.USER_DEFINED])
    writer = io.BytesIO()
    spm.set_random_generator_seed(seed)
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=lines,
            model_writer=writer,
            model_type="unigram",
            vocab_size=size + reserved,
            hard_vocab_limit=False,  # A small text gives fewer candidates, not an error.
            pad_id=0,
            unk_id=1,
            bos_id=-1,
            eos_id=-1,
            control_symbols=kinds[_Piece.CONTROL],
            user_defined_symbols=kinds[_Piece.USER_DEFINED],
            normalization_rule_name=spec.name,
            input_sentence_size=sample_size or 0,
            shuffle_input_sentence=True,
            num_threads=num_threads,
            minloglevel=2,
            **{name: getattr(spec, name) for name in _NORMALIZER_SETTINGS},
            **{name: getattr(trainer, name) for name in _SHAPE_SETTINGS},
        )
    except RuntimeError as error:
        raise UserError(
            f"training candidate pieces failed ({' '.join(str(error).split())})",
            where=source,
            fix="give more domain text",
        ) from error
    candidates = sentencepiece_model_pb2.ModelProto()
    candidates.ParseFromString(writer.getvalue())
    if candidates.normalizer_spec.precompiled_charsmap != spec.precompiled_charsmap:
        logging.warning(
            "%s: this SentencePiece's %r rules differ from the model's (another Unicode "
            "version); a few candidate pieces may never match.",
            source,
            spec.name,
        )
    return candidates


def _rank(
    candidates: sentencepiece_model_pb2.ModelProto,
    old_pieces: set[str],
    speller: PieceSpeller,
    lines: list[str],
    characters: collections.Counter,
    num_threads: int,
) -> list[str]:
    """The new normal candidates, best first (module docstring): characters the old model
    lacks by frequency, then the others by pieces saved on `lines`."""
    processor = spm.SentencePieceProcessor(model_proto=candidates.SerializeToString())
    uses: collections.Counter = collections.Counter()
    for ids in processor.encode(lines, num_threads=num_threads):
        uses.update(ids)
    ranked = []
    for piece_id, piece in enumerate(candidates.pieces):
        if piece.type != _Piece.NORMAL or piece.piece in old_pieces:
            continue
        spelling = speller.spell(piece.piece)
        if len(piece.piece) == 1 and spelling.unknown_characters:
            key = (0, -characters[piece.piece])
        else:
            key = (1, -uses[piece_id] * (spelling.cost - 1))
        ranked.append((key, -piece.score, piece.piece))
    return [piece for *_, piece in sorted(ranked)]


def new_piece_score(spelling_score: float, score_range: tuple[float, float]) -> float:
    """The score of a new piece whose old spelling scored `spelling_score` (module docstring)."""
    low, high = score_range
    return min(max(spelling_score + NEW_PIECE_MARGIN, low), high)


def _append(
    old: sentencepiece_model_pb2.ModelProto, pieces: list[str], speller: PieceSpeller
) -> sentencepiece_model_pb2.ModelProto:
    extended = sentencepiece_model_pb2.ModelProto()
    extended.CopyFrom(old)
    score_range = normal_score_range(old, len(old.pieces))
    for piece in pieces:
        extended.pieces.add(
            piece=piece,
            score=new_piece_score(speller.spell(piece).score, score_range),
            type=_Piece.NORMAL,
        )
    extended.trainer_spec.vocab_size = len(extended.pieces)
    return extended


def _report(
    old, extended, model_file, domain_lines, general_files, do_lower_case, num_threads, limit
) -> dict:
    old_processor = spm.SentencePieceProcessor(model_proto=old.SerializeToString())
    new_processor = spm.SentencePieceProcessor(model_proto=extended.SerializeToString())
    old_size = len(old.pieces)

    def compare(lines):
        return compare_segmentations(old_processor, new_processor, lines, old_size, num_threads)

    report = {
        "old_model": model_file,
        "old_pieces": old_size,
        "new_pieces": len(extended.pieces) - old_size,
        "do_lower_case": do_lower_case,
        "domain": compare(domain_lines),
    }
    used = set(itertools.chain.from_iterable(new_processor.encode(domain_lines)))
    report["new_pieces_used_on_domain"] = sum(1 for i in used if i >= old_size)
    if general_files:
        lines = list(itertools.islice(normalized_lines(general_files, do_lower_case), limit))
        report["general"] = compare(lines)
    return report


def _write(proto: sentencepiece_model_pb2.ModelProto, model_prefix: str, report: dict) -> None:
    """`.vocab`, `.extension.json`, then `.model`, each renamed into place."""
    output_dir = os.path.dirname(os.path.abspath(model_prefix))
    os.makedirs(output_dir, exist_ok=True)
    with output_lock(model_prefix):
        temp_dir = tempfile.mkdtemp(prefix=".spm_extend_", dir=output_dir)
        try:
            vocab = "".join(f"{p.piece}\t{p.score:g}\n" for p in proto.pieces)
            files = {
                ".vocab": vocab.encode("utf-8"),
                REPORT_SUFFIX: (json.dumps(report, indent=2, ensure_ascii=False) + "\n").encode(),
                ".model": proto.SerializeToString(),
            }
            for suffix, content in files.items():
                with open(os.path.join(temp_dir, "model" + suffix), "wb") as handle:
                    handle.write(content)
            for suffix in files:
                os.replace(os.path.join(temp_dir, "model" + suffix), model_prefix + suffix)
        finally:
            shutil.rmtree(temp_dir, ignore_errors=True)
