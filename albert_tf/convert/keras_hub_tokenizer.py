"""The SentencePiece model of a keras-hub preset, with ALBERT's normalization built in.

keras-hub's `AlbertTokenizer` runs the SentencePiece model on the raw text: only the model's own
normalizer (`nmt_nfkc` in ALBERT's models) applies. albert_tf first normalizes like the
original ALBERT (`normalize_text`: whitespace collapsed, NFKD, accents stripped, lowercased),
and its models are trained on such text, so on the bare model keras-hub gives other ids for
almost every cased or accented sentence (98% of data/sample.txt's lines).

A SentencePiece normalizer is a table of rewrite rules (`precompiled_charsmap`, longest match
first), so the preset's model gets one whose rules are ALBERT's normalization followed by the
model's own, per character: `c -> model_normalizer(normalize_text(c))` for every assigned
character. Rules for the sequences the model's NFKC composes (Hangul jamo, some Indic vowel
signs) and for the special tokens (`[CLS]`, `[SEP]`, `[MASK]` keep their spelling whatever the
casing and take the whitespace before them, as albert_tf's tokenizer drops that `▁`) follow.
The special tokens become user-defined pieces, as `load_albert_model_proto` makes them, so text
holding them gives their ids. Ids, pieces and scores are unchanged.

Where keras-hub still differs from albert_tf (tested):
* a capital sigma ending a word: Python's `str.lower` writes the final form `ς`, a per-character
  table `σ`;
* a special token at the very start of a text, or after two or more whitespace characters, keeps
  the `▁` piece before it (the dummy prefix and collapsed whitespace are not rules);
* a special token spelled with compatibility characters (e.g. the Kelvin sign in `[MASK]`).

Illustration (not run):
    proto = normalizing_model_proto("30k-clean.model")
    keras_hub.models.AlbertTokenizer(proto=proto)("Café NAÏVE")  # == AlbertTokenizer.encode
"""

from __future__ import annotations

import functools
import io
import itertools
import os
import sys
import tempfile
import unicodedata

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2

from albert_tf.tokenization.model_proto import albert_model_proto_from_bytes
from albert_tf.tokenization.normalize import SPECIAL_TOKENS, normalize_text

# Characters whose normalization is not their own: no rule needed for unassigned, private-use
# and surrogate code points (NFKD, accents and case leave them alone).
_NO_RULE_CATEGORIES = ("Cn", "Co", "Cs")


def normalizing_model_proto(spm_model_file: str, do_lower_case: bool = True) -> bytes:
    """The ALBERT model of `spm_model_file` with ALBERT's normalization in its normalizer."""
    with open(spm_model_file, "rb") as f:
        proto = sentencepiece_model_pb2.ModelProto()
        proto.ParseFromString(albert_model_proto_from_bytes(f.read(), spm_model_file))
    spec = proto.normalizer_spec
    spec.precompiled_charsmap = _albert_charsmap(spec.SerializeToString(), do_lower_case)
    spec.name = f"albert_tf_{spec.name or 'identity'}{'_lowercase' if do_lower_case else ''}"
    return proto.SerializeToString()


@functools.lru_cache(maxsize=4)
def _albert_charsmap(normalizer_spec: bytes, do_lower_case: bool) -> bytes:
    """The compiled rules (see the module docstring) for a model's normalizer; ~2 s, cached."""
    spec = sentencepiece_model_pb2.NormalizerSpec()
    spec.ParseFromString(normalizer_spec)
    model_normalizer = _normalizer(spec)
    rules = _character_rules(model_normalizer, do_lower_case)
    rules.update(_composition_rules(model_normalizer, rules, do_lower_case))
    rules.update(_special_token_rules(do_lower_case))
    return _compile(rules)


def _normalizer(spec: sentencepiece_model_pb2.NormalizerSpec) -> spm.SentencePieceNormalizer:
    """A normalizer applying `spec`'s rules only (no whitespace handling: that stays in spm)."""
    model = sentencepiece_model_pb2.ModelProto()
    model.normalizer_spec.CopyFrom(spec)
    model.pieces.add(piece="<unk>", type=sentencepiece_model_pb2.ModelProto.SentencePiece.UNKNOWN)
    return spm.SentencePieceNormalizer(model_proto=model.SerializeToString())


def _albert(text: str, do_lower_case: bool) -> str:
    # A lone whitespace character is a separator; `normalize_text` would strip it away.
    return " " if text.isspace() else normalize_text(text, do_lower_case)


@functools.cache
def _assigned_characters() -> tuple[str, ...]:
    return tuple(
        chr(c)
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) not in _NO_RULE_CATEGORIES
    )


def _character_rules(model_normalizer, do_lower_case: bool) -> dict[str, str]:
    characters = _assigned_characters()
    targets = model_normalizer.normalize([_albert(c, do_lower_case) for c in characters])
    return {c: target for c, target in zip(characters, targets, strict=True) if target != c}


def _composition_rules(model_normalizer, single: dict[str, str], do_lower_case: bool):
    """Rules for sequences NFKC composes after accents are stripped (marks of class 0)."""
    sequences = set()
    for character in _assigned_characters():
        parts = unicodedata.normalize("NFD", character)
        if len(parts) > 1 and not any(unicodedata.combining(c) for c in parts[1:]):
            sequences.add(parts)  # e.g. Hangul L V T, and its LV syllable + T below
            sequences.add(unicodedata.normalize("NFC", parts[:-1]) + parts[-1])
    sequences = sorted(s for s in sequences if len(s) > 1)
    targets = model_normalizer.normalize([_albert(s, do_lower_case) for s in sequences])
    return {
        s: target
        for s, target in zip(sequences, targets, strict=True)
        if target != "".join(single.get(c, c) for c in s)
    }


def _special_token_rules(do_lower_case: bool) -> dict[str, str]:
    """Each spelling of a special token albert_tf recognizes, alone or after one whitespace."""
    whitespace = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    rules = {}
    for token in SPECIAL_TOKENS:
        cases = [(c.lower(), c.upper()) if do_lower_case else (c,) for c in token]
        for spelling in map("".join, itertools.product(*cases)):
            for before in ["", *whitespace]:
                rules[before + spelling] = token
    return rules


def _compile(rules: dict[str, str]) -> bytes:
    """A `precompiled_charsmap` of `rules`, compiled by SentencePiece's own rule builder."""

    def codes(text: str) -> str:
        return " ".join(f"{ord(c):X}" for c in text)

    with tempfile.TemporaryDirectory() as directory:
        tsv = os.path.join(directory, "rules.tsv")
        with open(tsv, "w", encoding="ascii") as f:
            f.writelines(f"{codes(source)}\t{codes(target)}\n" for source, target in rules.items())
        # The builder is reachable through the trainer only: train a throwaway model.
        model = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(["ab"]),
            model_writer=model,
            model_type="char",
            vocab_size=8,
            hard_vocab_limit=False,
            normalization_rule_tsv=tsv,
            minloglevel=2,
        )
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(model.getvalue())
    return proto.normalizer_spec.precompiled_charsmap
