"""The original RACE encoding of one (context, question, option), in plain Python: the
reference the in-graph `ChoiceFeatures` layer is tested against (`test_encoding.py`).

It follows the steps of `albert_tf.finetune.multiple_choice.choice_features`'s docstring one
option at a time, with the same blank rule (`blank_per_underscore=True`: the original's).

Example:
    >>> fill_blank("The boy went to the _ .", "park")
    'The boy went to the park .'
    >>> fill_blank("He was ___ .", "ill", blank_per_underscore=True)
    'He was illillill .'
    >>> fill_blank("Why did he go?", "to rest")
    'Why did he go? to rest'
"""

from __future__ import annotations

import re

from albert_tf.finetune.multiple_choice.choice_features import BLANK
from albert_tf.tokenization.model_proto import CLS_ID, SEP_ID
from albert_tf.tokenization.tokenizer import AlbertTokenizer

BLANK_RUN = re.compile("_+")


def fill_blank(question: str, option: str, blank_per_underscore: bool = False) -> str:
    """The QA text of one option (step 1 of `choice_features`'s docstring)."""
    if BLANK not in question:
        return f"{question} {option}"
    if blank_per_underscore:
        return question.replace(BLANK, option)
    return BLANK_RUN.sub(lambda _: option, question)


def encode_choice_reference(
    tokenizer: AlbertTokenizer,
    context: str,
    question: str,
    option: str,
    max_seq_length: int,
    max_qa_length: int,
    blank_per_underscore: bool = False,
) -> dict[str, list[int]]:
    """`input_word_ids`, `input_mask`, `input_type_ids` of one option, each `max_seq_length`.

    A padding option (empty `option`) is all zeros, as `ChoiceFeatures` makes it.
    """
    if not option:
        zeros = [0] * max_seq_length
        return {"input_word_ids": zeros, "input_mask": zeros, "input_type_ids": zeros}
    qa_ids = tokenizer.encode(fill_blank(question, option, blank_per_underscore))
    qa_ids = qa_ids[len(qa_ids) - min(len(qa_ids), max_qa_length) :]
    context_ids = tokenizer.encode(context)[: max(0, max_seq_length - 3 - len(qa_ids))]
    word_ids = [CLS_ID, *context_ids, SEP_ID, *qa_ids, SEP_ID]
    type_ids = [0] * (len(context_ids) + 2) + [1] * (len(qa_ids) + 1)
    padding = [0] * (max_seq_length - len(word_ids))
    return {
        "input_word_ids": word_ids + padding,
        "input_mask": [1] * len(word_ids) + padding,
        "input_type_ids": type_ids + padding,
    }
