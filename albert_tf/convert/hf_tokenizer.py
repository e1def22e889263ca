"""Hugging Face tokenizer files for an ALBERT SentencePiece model, matching albert_tf's ids.

`transformers` 5 has only a `tokenizers`-based `AlbertTokenizer`. Built from a
bare `spiece.model` it differs from SentencePiece (and from albert_tf) in two
ways, measured on data/sample.txt (97% of its lines differ):

1. it maps ``` `` ``` and `''` to `"` (the original ALBERT and albert_tf do not;
   `normalize_text(..., map_quotes=True)` gives the Hugging Face behavior);
2. it turns SentencePiece's user-defined symbols (the release's `( ) " - . – £ €`)
   into "added tokens" split off before tokenization, so the `▁` piece that
   SentencePiece emits before a symbol preceded by a space is dropped and a `▁`
   is added after a symbol followed by a letter (`"a (b"`: SentencePiece
   `▁a ▁ ( b`, Hugging Face `▁a ( ▁ b`); it also lowers the scores of pieces
   like `"67,"` by 100 (emulating the original's digit-comma re-split).

So we also write a `tokenizer.json`, from which `transformers` takes the
vocabulary: the SentencePiece unigram pieces with their own scores, user symbols
as ordinary pieces (not added tokens), and the model's precompiled
normalization. With it, `AlbertTokenizer.from_pretrained(dir).encode(text,
add_special_tokens=False)` equals albert_tf's
`AlbertTokenizer.encode(normalize_text(text, map_quotes=True))` on every line
of data/sample.txt (tested). Remaining differences, all documented and tested:

* quotes (1.): Hugging Face's `AlbertTokenizer` rebuilds its normalizer itself
  and always maps them, so a text with ``` `` ``` or `''` differs unless albert_tf
  normalizes with `map_quotes=True`; the tokenizer.json says the same, so any
  class that loads it verbatim behaves alike;
* a literal lowercase `[mask]` is the mask id in albert_tf (special tokens
  survive lowercasing) but ordinary pieces in Hugging Face (case-sensitive);
* segmentations with exactly equal scores (e.g. `00`+`0` vs `0`+`00`) may be
  broken differently by SentencePiece and `tokenizers` (seen with a model
  trained without user symbols, none with the default ones on sample.txt).

Illustration (not run):
    write_hf_tokenizer("30k-clean.model", "hf_dir")
    sorted(os.listdir("hf_dir"))
    ['special_tokens_map.json', 'spiece.model', 'tokenizer.json', 'tokenizer_config.json']
"""

from __future__ import annotations

import base64
import json
import os

from albert_tf.tokenization.model_proto import parse_model_proto, validate_albert_layout

SPECIAL_TOKENS = {
    "pad_token": "<pad>",
    "unk_token": "<unk>",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "mask_token": "[MASK]",
    "bos_token": "[CLS]",
    "eos_token": "[SEP]",
}
_WORD_START = "\u2581"


def _metaspace() -> dict:
    return {
        "type": "Metaspace",
        "replacement": _WORD_START,
        "prepend_scheme": "always",
        "split": True,
    }


def _special_token(piece_id: int, content: str) -> dict:
    return {
        "id": piece_id,
        "content": content,
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": False,
        "special": True,
    }


def tokenizer_json(model_proto, do_lower_case: bool = True) -> dict:
    """The `tokenizers` JSON of an ALBERT SentencePiece `ModelProto` (see the module docstring)."""
    pieces = [(piece.piece, piece.score) for piece in model_proto.pieces]
    ids = {piece: index for index, (piece, _) in enumerate(pieces)}
    # Hugging Face's AlbertTokenizer always maps the quotes (see the module docstring).
    normalizers = [
        {"type": "Replace", "pattern": {"String": "``"}, "content": '"'},
        {"type": "Replace", "pattern": {"String": "''"}, "content": '"'},
        {"type": "NFKD"},
        {"type": "StripAccents"},
    ]
    if do_lower_case:
        normalizers.append({"type": "Lowercase"})
    charsmap = model_proto.normalizer_spec.precompiled_charsmap
    if charsmap:
        normalizers.append(
            {
                "type": "Precompiled",
                "precompiled_charsmap": base64.b64encode(charsmap).decode("ascii"),
            }
        )
    specials = ["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"]
    template_ids = {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in ("[CLS]", "[SEP]")}

    def special(name: str, type_id: int) -> dict:
        return {"SpecialToken": {"id": name, "type_id": type_id}}

    def sequence(name: str, type_id: int) -> dict:
        return {"Sequence": {"id": name, "type_id": type_id}}

    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [_special_token(ids[t], t) for t in specials],
        "normalizer": {"type": "Sequence", "normalizers": normalizers},
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [{"type": "WhitespaceSplit"}, _metaspace()],
        },
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)],
            "pair": [
                special("[CLS]", 0),
                sequence("A", 0),
                special("[SEP]", 0),
                sequence("B", 1),
                special("[SEP]", 1),
            ],
            "special_tokens": template_ids,
        },
        "decoder": _metaspace(),
        "model": {
            "type": "Unigram",
            "unk_id": ids["<unk>"],
            "vocab": [[piece, score] for piece, score in pieces],
            "byte_fallback": False,
        },
    }


def hf_tokenizer_files(spm_model_file: str, do_lower_case: bool = True) -> dict[str, bytes]:
    """File name -> content of a Hugging Face ALBERT tokenizer for `spm_model_file`."""
    with open(spm_model_file, "rb") as f:
        model_bytes = f.read()
    proto = parse_model_proto(model_bytes, source=spm_model_file)
    validate_albert_layout(proto, spm_model_file)
    config = {
        "tokenizer_class": "AlbertTokenizer",
        "do_lower_case": do_lower_case,
        "keep_accents": False,
        "remove_space": True,
        "model_max_length": 512,
        # ALBERT takes segment ids; without this transformers 5 returns no token_type_ids.
        "model_input_names": ["input_ids", "token_type_ids", "attention_mask"],
        **SPECIAL_TOKENS,
    }

    def dump(value) -> bytes:
        return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

    return {
        "spiece.model": model_bytes,
        "tokenizer.json": dump(tokenizer_json(proto, do_lower_case)),
        "tokenizer_config.json": dump(config),
        "special_tokens_map.json": dump(SPECIAL_TOKENS),
    }


def write_hf_tokenizer(spm_model_file: str, directory: str, do_lower_case: bool = True) -> None:
    """Writes the Hugging Face tokenizer files of `spm_model_file` into `directory` (made if
    missing), beside whatever model files it holds."""
    os.makedirs(directory, exist_ok=True)
    for name, content in hf_tokenizer_files(spm_model_file, do_lower_case).items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(content)
