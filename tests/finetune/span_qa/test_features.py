"""Windows and offsets: every answer of ../shared/data/squad maps back; oracle logits score 100."""

from __future__ import annotations

import numpy as np
import pytest

from albert_tf.errors import UserError
from albert_tf.finetune.span_qa.decoding import AnswerRules, decode
from albert_tf.finetune.span_qa.examples import Answer, SquadExample, read_squad
from albert_tf.finetune.span_qa.features import SquadFeaturizer
from albert_tf.finetune.span_qa.scoring import evaluate
from albert_tf.tokenization.model_proto import CLS_ID, SEP_ID
from tests.finetune.span_qa.conftest import SQUAD_DIR, SQUAD_FILES


def test_windows_follow_the_original_layout(tiny_tokenizer):
    featurizer = SquadFeaturizer(
        tiny_tokenizer, max_seq_length=32, doc_stride=8, max_query_length=5
    )
    context = "the king of the normans ruled the land for many long years after the war"
    answer = Answer("many long years", context.index("many long years"))
    example = SquadExample("q", "who was the king of the land then?", context, (answer,))
    windows = featurizer.featurize([example])
    pieces = featurizer.context_pieces(context)
    question = tiny_tokenizer.encode(example.question)[:5]
    window_length = 32 - len(question) - 3
    starts = featurizer.window_starts(len(pieces.ids), window_length)
    assert len(windows) == len(starts) > 1
    assert starts[-1] + window_length >= len(pieces.ids) > starts[-2] + window_length
    assert set(np.diff(starts)) == {8}
    for w, start in enumerate(starts):
        ids = windows.input_word_ids[w]
        count = min(window_length, len(pieces.ids) - start)
        offset = len(question) + 2
        assert ids[0] == CLS_ID and ids[offset - 1] == SEP_ID and ids[offset + count] == SEP_ID
        assert ids[1 : offset - 1].tolist() == question
        assert ids[offset : offset + count].tolist() == pieces.ids[start : start + count].tolist()
        assert windows.input_type_ids[w].tolist() == [0] * offset + [1] * (count + 1) + [0] * (
            32 - offset - count - 1
        )
        assert windows.input_mask[w].sum() == offset + count + 1
        first, last = windows.labels[w]
        if first:  # The window holds the answer: its pieces cover exactly the answer.
            assert context[windows.char_starts[w, first] : windows.char_ends[w, last]] == (
                "many long years"
            )
    assert windows.labels[:, 0].any() and not windows.labels[0].any()


def test_question_too_long_for_the_window_is_a_user_error(tiny_tokenizer):
    with pytest.raises(UserError, match="max_query_length"):
        SquadFeaturizer(tiny_tokenizer, max_seq_length=32, max_query_length=30)
    # A long question is cut to max_query_length (documented), not an error.
    featurizer = SquadFeaturizer(tiny_tokenizer, max_seq_length=32, max_query_length=4)
    windows = featurizer.featurize([SquadExample("q", "why " * 50, "a b c")])
    assert windows.input_word_ids[0, 5] == SEP_ID


@pytest.fixture(scope="module", params=SQUAD_FILES)
def squad_file(request):
    return read_squad(str(SQUAD_DIR / request.param))


def test_every_answer_maps_back_to_its_exact_text_or_a_covering_piece(squad_file, tiny_tokenizer):
    """Gold answer -> pieces -> original substring. The only failures allowed are answers
    that end or start inside a piece ("Japan" in "▁japanese"): the piece's text covers them."""
    featurizer = SquadFeaturizer(tiny_tokenizer)
    total, exact, failures = 0, 0, []
    for example in squad_file.examples:
        pieces = featurizer.context_pieces(example.context)
        for answer in example.answers:
            single = SquadExample(example.qas_id, "", example.context, (answer,))
            first, last = featurizer.answer_positions(single, pieces)
            mapped = example.context[pieces.starts[first] : pieces.ends[last]]
            total += 1
            if mapped == answer.text:
                exact += 1
            else:
                failures.append((example.qas_id, answer.text, mapped))
    print(f"{squad_file.path}: {exact}/{total} answers map exactly; failures: {failures}")
    assert exact / total > 0.99
    for _, text, mapped in failures:
        assert text in mapped and len(mapped) > len(text)


# Questions of each file the oracle decodes: every one of the dev files, the first 1,500 of
# v2.0/train.json (4,449: three times the decoding time, no other kind of question).
ORACLE_QUESTIONS = 1500


@pytest.mark.slow  # Decodes whole SQuAD files.
def test_oracle_logits_score_100_on_every_mappable_question(squad_file, tiny_tokenizer):
    featurizer = SquadFeaturizer(tiny_tokenizer, max_seq_length=384)
    examples = squad_file.examples
    if squad_file.path.endswith("train.json"):
        examples = examples[:ORACLE_QUESTIONS]
    windows = featurizer.featurize(examples)
    logits = np.full(windows.input_word_ids.shape + (2,), -10.0, np.float32)
    rows = np.arange(len(windows))
    logits[rows, windows.labels[:, 0], 0] = 10.0
    logits[rows, windows.labels[:, 1], 1] = 10.0
    # The 300-piece test vocabulary makes answers long: the limit is the longest gold span.
    longest = int(np.max(windows.labels[:, 1] - windows.labels[:, 0])) + 1
    rules = AnswerRules(max_answer_length=longest, with_null=squad_file.is_v2)
    predictions = decode(examples, windows, logits, rules)
    version = 2 if squad_file.is_v2 else 1
    results = evaluate(examples, predictions.answers, predictions.null_odds, version)
    # Questions whose first gold answer maps exactly must be perfect.
    mappable = [
        e
        for e in examples
        if e.is_impossible or e.context[slice(*_mapped_span(featurizer, e))] == e.answers[0].text
    ]
    perfect = evaluate(mappable, predictions.answers, predictions.null_odds, version)
    print(f"{squad_file.path}: oracle {results}; mappable {len(mappable)}/{len(examples)}")
    assert perfect["exact"] == perfect["f1"] == 100.0
    assert results["exact"] > 99.0 and results["f1"] > 99.0
    if squad_file.is_v2:
        assert results["NoAns_exact"] == 100.0


def _mapped_span(featurizer, example):
    pieces = featurizer.context_pieces(example.context)
    first, last = featurizer.answer_positions(example, pieces)
    return int(pieces.starts[first]), int(pieces.ends[last])
