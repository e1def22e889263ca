"""Dynamic masking: re-draws the whole-word n-gram masks in the input pipeline (pure TF).

The original ALBERT declared dynamic masking but never implemented it: every record kept
the masks drawn once by `create_pretraining_data.py` (times `dupe_factor`). Here a record
is re-masked each time the pipeline reads it, from its own fields:

1. the original pieces are recovered: `input_ids` with `masked_lm_ids` put back at the
   real `masked_lm_positions`;
2. the masks are drawn again by the offline builder's process (`albert_tf.data.masking`):
   candidates are whole words (`token_boundary` = 1 starts a word), never [CLS]/[SEP] or
   padding; budget = min(max_predictions_per_seq, max(1, round(num_real_tokens *
   masked_lm_prob))); words are visited in random order, at each an n in 1..ngram is
   drawn with p(n) proportional to 1/n, n shrinks to the end of the segment and then
   until the n-gram's pieces fit the remaining budget, and the n-gram is skipped if it
   overlaps masked words; each masked piece becomes 80% [MASK], 10% itself, 10% a random
   ordinary piece;
3. the 7 model features come out again, masked positions sorted and zero padded.

It is the same random process as the offline builder, not an approximation: the visit
loop is a `tf.while_loop` whose step handles the t-th visited word of every row of the
batch at once, with static shapes, and which stops as soon as every row has its budget
(a few dozen steps, not one per word). Differences from `albert_tf.data.masking`:

- the random numbers come from TF stateless ops keyed by (seed, element index), so the
  masks are a pure function of the seed and the position in the stream (resuming at a
  data position gives the same masks) and differ each time a record comes back;
- a continuation piece right after [SEP] starts a word (the offline code would attach it
  to the last word of segment A); a word never spans a [SEP] either way;
- random replacements are drawn from ids in [first_normal_id, vocab_size) (or from
  `normal_piece_ids` when given): the pipeline has no SentencePiece model to tell
  control or unused pieces apart.

Illustration (not run):
    mask = dynamic_mask_fn(MaskingOptions(max_predictions_per_seq=20), vocab_size=30000,
                           seed=12345)
    dataset = batches.enumerate().map(mask)   # batches of parsed records + token_boundary
    sorted(next(iter(dataset)))
    ['input_ids', 'input_mask', 'masked_lm_ids', 'masked_lm_positions', ...]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import tensorflow as tf

from albert_tf.data.masking import MaskingOptions
from albert_tf.tokenization.model_proto import CLS_ID, FIRST_NORMAL_ID, MASK_ID, SEP_ID

# The features a masking function reads; it returns them all but `token_boundary`.
INPUT_FEATURES = (
    "input_ids",
    "input_mask",
    "segment_ids",
    "token_boundary",
    "masked_lm_positions",
    "masked_lm_ids",
    "masked_lm_weights",
)

MaskFn = Callable[[tf.Tensor, dict[str, tf.Tensor]], dict[str, tf.Tensor]]


def dynamic_mask_fn(
    options: MaskingOptions,
    vocab_size: int,
    seed: int | tuple[int, int],
    first_normal_id: int = FIRST_NORMAL_ID,
    normal_piece_ids: Sequence[int] | None = None,
) -> MaskFn:
    """A `(index, features) -> features` function that masks records again (see module doc).

    Made for `dataset.enumerate().map(fn)`: `index` (a scalar int) keys the random draws
    with `seed`, so the same (seed, index, record) always gives the same masks. `features`
    hold `INPUT_FEATURES` of one record (`[L]`, `[P]`) or of a batch (`[B, L]`, `[B, P]`),
    any int dtype; other features (`next_sentence_labels`) pass through unchanged, and
    `token_boundary` is dropped. Outputs keep the input dtypes and static shapes.

    Args:
      options: the offline builder's masking options (`max_predictions_per_seq` is P, the
        length of the masked_lm_* features; `masked_lm_prob`, `ngram`, `favor_shorter_ngram`,
        `do_whole_word_mask` as there).
      vocab_size: random replacements are < vocab_size.
      seed: an int, or a pair (e.g. (seed, input pipeline id)).
      first_normal_id: random replacements are >= this id.
      normal_piece_ids: if given, random replacements are drawn from these ids instead.

    Illustration (not run):
      fn = dynamic_mask_fn(MaskingOptions(max_predictions_per_seq=4), vocab_size=64, seed=1)
      fn(tf.constant(0, tf.int64), features)["masked_lm_positions"].shape
      TensorShape([4])
    """
    replacement_ids = _replacement_ids(vocab_size, first_normal_id, normal_piece_ids)
    base_seed = (seed, 0) if isinstance(seed, (int, np.integer)) else tuple(seed)
    if len(base_seed) != 2:
        raise ValueError(f"dynamic masking: seed must be an int or a pair, got {seed!r}.")
    ngram_logits = np.log(options.ngram_probabilities()).astype(np.float32)

    def mask(index: tf.Tensor, features: dict[str, tf.Tensor]) -> dict[str, tf.Tensor]:
        missing = [name for name in INPUT_FEATURES if name not in features]
        if missing:
            raise ValueError(
                f"dynamic masking needs the features {missing} (records without "
                "token_boundary cannot be re-masked; regenerate them with "
                "albert-tf data)."
            )
        single = features["input_ids"].shape.rank == 1
        batch = {name: value[tf.newaxis] if single else value for name, value in features.items()}
        key = tf.random.experimental.stateless_fold_in(
            tf.constant(base_seed, tf.int64), tf.cast(index, tf.int64)
        )
        masked = _mask_batch(
            batch, key, options, vocab_size, first_normal_id, replacement_ids, ngram_logits
        )
        output = {name: value for name, value in batch.items() if name != "token_boundary"}
        for name, value in masked.items():
            output[name] = tf.cast(value, batch[name].dtype)
        if single:
            output = {name: value[0] for name, value in output.items()}
        return output

    return mask


def _replacement_ids(
    vocab_size: int, first_normal_id: int, normal_piece_ids: Sequence[int] | None
) -> np.ndarray | None:
    """Validated `normal_piece_ids` as an array (None: draw from [first_normal_id, vocab))."""
    if normal_piece_ids is None:
        if not 0 <= first_normal_id < vocab_size:
            raise ValueError(
                f"dynamic masking: first_normal_id {first_normal_id} must be in [0, "
                f"vocab_size={vocab_size}) so random replacements have ids to draw from."
            )
        return None
    ids = np.asarray(normal_piece_ids, dtype=np.int32).reshape(-1)
    if not ids.size or ids.min() < 0 or ids.max() >= vocab_size:
        raise ValueError(
            f"dynamic masking: normal_piece_ids must be non-empty ids in [0, {vocab_size})."
        )
    return ids


def original_input_ids(features: dict[str, tf.Tensor]) -> tf.Tensor:
    """`input_ids` [B, L] with the real `masked_lm_ids` put back at their positions."""
    input_ids = tf.cast(features["input_ids"], tf.int32)
    length = tf.shape(input_ids)[1]
    positions = tf.cast(features["masked_lm_positions"], tf.int32)
    labels = tf.cast(features["masked_lm_ids"], tf.int32)
    real = features["masked_lm_weights"] > 0
    # [B, P, L]: prediction p is real and sits at position l (padding slots point at 0).
    at = (positions[:, :, None] == tf.range(length)[None, None, :]) & real[:, :, None]
    label_at = tf.reduce_max(tf.where(at, labels[:, :, None], -1), axis=1)
    return tf.where(label_at >= 0, label_at, input_ids)


def _word_table(candidate: tf.Tensor, starts: tf.Tensor, ngram: int):
    """Words of each row as [B, W + ngram] tables (W = L), padded past the row's words.

    Returns (word index of each position [B, L], number of words [B], pieces before each
    word [B, W + ngram + 1], run of each word [B, W + ngram] (-1 past the last word): words
    of one run are consecutive pieces with no [CLS]/[SEP]/padding between them).
    """
    batch_size, length = tf.shape(candidate)[0], tf.shape(candidate)[1]
    word_index = tf.cumsum(tf.cast(starts, tf.int32), axis=1) - 1
    num_words = tf.reduce_sum(tf.cast(starts, tf.int32), axis=1)
    # Non-candidate pieces go to one extra, discarded segment.
    rows = tf.range(batch_size)[:, None]
    segment = tf.where(
        candidate & (word_index >= 0), rows * length + word_index, batch_size * length
    )
    num_segments = batch_size * length + 1
    pieces = tf.math.unsorted_segment_sum(tf.cast(candidate, tf.int32), segment, num_segments)
    pieces = tf.reshape(pieces[:-1], [batch_size, length])
    run = tf.cumsum(tf.cast(~candidate, tf.int32), axis=1)
    word_run = tf.math.unsorted_segment_max(run, segment, num_segments)
    word_run = tf.reshape(word_run[:-1], [batch_size, length])
    is_word = tf.range(length)[None, :] < num_words[:, None]
    word_run = tf.pad(tf.where(is_word, word_run, -1), [[0, 0], [0, ngram]], constant_values=-1)
    # Exclusive prefix sums, the total repeated past the end: n-grams may run off it.
    total = tf.reduce_sum(pieces, axis=1, keepdims=True)
    piece_sums = tf.concat(
        [tf.zeros_like(total), tf.cumsum(pieces, axis=1), tf.tile(total, [1, ngram])], axis=1
    )
    return word_index, num_words, piece_sums, word_run


def _choose_words(
    piece_sums: tf.Tensor,
    word_run: tf.Tensor,
    num_words: tf.Tensor,
    budget: tf.Tensor,
    ngram_logits: np.ndarray,
    seeds: tf.Tensor,
) -> tf.Tensor:
    """The builder's sequential visit, all rows in lock step: bool [B, W + ngram] masked."""
    ngram = len(ngram_logits)
    batch_size = tf.shape(word_run)[0]
    width = tf.shape(word_run)[1] - ngram
    is_word = tf.range(width)[None, :] < num_words[:, None]
    priority = tf.random.stateless_uniform([batch_size, width], seeds[0])
    order = tf.argsort(tf.where(is_word, priority, 2.0), axis=1, stable=True)
    drawn_n = 1 + tf.random.stateless_categorical(
        tf.tile(ngram_logits[None, :], [batch_size, 1]), width, seeds[1], dtype=tf.int32
    )
    offsets = tf.range(ngram + 1)[None, :]
    columns = tf.range(width + ngram)[None, :]

    def active(step, masked):
        return (step < num_words) & (masked < budget)

    def keep_going(step, masked, covered):
        return tf.reduce_any(active(step, masked))

    def visit(step, masked, covered):
        word = order[:, step]
        # n-gram of k words starting at `word`, k = 1..ngram: its pieces, and whether its
        # last word is a word of the same run (else it would cross [SEP] or the end).
        span = word[:, None] + offsets
        pieces = tf.gather(piece_sums, span, batch_dims=1)[:, 1:] - tf.gather(
            piece_sums, word[:, None], batch_dims=1
        )
        runs = tf.gather(word_run, span[:, :-1], batch_dims=1)
        k = offsets[:, 1:]
        room = budget - masked
        # Each condition holds for a prefix of k, so the longest n that fits is the count.
        fits = (k <= drawn_n[:, step][:, None]) & (runs == runs[:, :1]) & (pieces <= room[:, None])
        chosen = tf.reduce_sum(tf.cast(fits, tf.int32), axis=1)
        already = tf.gather(covered, span[:, :-1], batch_dims=1) & (k - 1 < chosen[:, None])
        accept = active(step, masked) & (chosen > 0) & ~tf.reduce_any(already, axis=1)
        chosen_pieces = tf.gather(pieces, tf.maximum(chosen - 1, 0)[:, None], batch_dims=1)
        masked += tf.where(accept, chosen_pieces[:, 0], 0)
        new = (columns >= word[:, None]) & (columns < (word + chosen)[:, None])
        return step + 1, masked, covered | (new & accept[:, None])

    _, _, covered = tf.while_loop(
        keep_going,
        visit,
        (
            tf.constant(0),
            tf.zeros([batch_size], tf.int32),
            tf.zeros([batch_size, width + ngram], tf.bool),
        ),
        maximum_iterations=width,
    )
    return covered


def _mask_batch(
    features: dict[str, tf.Tensor],
    key: tf.Tensor,
    options: MaskingOptions,
    vocab_size: int,
    first_normal_id: int,
    replacement_ids: np.ndarray | None,
    ngram_logits: np.ndarray,
) -> dict[str, tf.Tensor]:
    """New `input_ids` and masked_lm_* features (int32 / float32) of a [B, L] batch."""
    seeds = tf.random.experimental.stateless_split(key, num=4)
    input_ids = original_input_ids(features)
    batch_size, length = tf.shape(input_ids)[0], tf.shape(input_ids)[1]
    real = features["input_mask"] > 0
    candidate = real & (input_ids != CLS_ID) & (input_ids != SEP_ID)
    previous_candidate = tf.pad(candidate[:, :-1], [[0, 0], [1, 0]])
    boundary = features["token_boundary"] > 0
    if not options.do_whole_word_mask:
        boundary = tf.ones_like(boundary)
    starts = candidate & (boundary | ~previous_candidate)
    word_index, num_words, piece_sums, word_run = _word_table(candidate, starts, options.ngram)

    num_real = tf.reduce_sum(tf.cast(real, tf.float32), axis=1)
    wanted = tf.maximum(1, tf.cast(tf.round(num_real * options.masked_lm_prob), tf.int32))
    budget = tf.minimum(options.max_predictions_per_seq, wanted)
    covered = _choose_words(piece_sums, word_run, num_words, budget, ngram_logits, seeds)
    is_masked = candidate & tf.gather(covered, tf.maximum(word_index, 0), batch_dims=1)

    # 80% [MASK], 10% kept, 10% random ordinary piece (the original's two coin flips).
    coins = tf.random.stateless_uniform([2, batch_size, length], seeds[2])
    if replacement_ids is None:
        random_ids = tf.random.stateless_uniform(
            [batch_size, length], seeds[3], first_normal_id, vocab_size, dtype=tf.int32
        )
    else:
        draw = tf.random.stateless_uniform(
            [batch_size, length], seeds[3], 0, len(replacement_ids), dtype=tf.int32
        )
        random_ids = tf.gather(tf.constant(replacement_ids), draw)
    replaced = tf.where(coins[0] < 0.8, MASK_ID, tf.where(coins[1] < 0.5, input_ids, random_ids))
    output_ids = tf.where(is_masked, replaced, input_ids)

    # Masked positions in order: the k-th masked position of a row goes to slot k (a
    # scatter by running count; tf.sort is far slower on CPU). Unmasked ones go to a
    # discarded slot.
    predictions = options.max_predictions_per_seq
    slot = tf.cumsum(tf.cast(is_masked, tf.int32), axis=1) - 1
    rows = tf.range(batch_size)[:, None]
    in_slots = is_masked & (slot < predictions)  # always: the budget is <= predictions
    target = rows * (predictions + 1) + tf.where(in_slots, slot, predictions)
    num_slots = batch_size * (predictions + 1)

    def scatter(values):
        summed = tf.math.unsorted_segment_sum(values, target, num_slots)
        return tf.reshape(summed, [batch_size, predictions + 1])[:, :predictions]

    positions = scatter(tf.broadcast_to(tf.range(length)[None, :], tf.shape(input_ids)))
    label_ids = scatter(tf.where(is_masked, input_ids, 0))
    weights = scatter(tf.cast(is_masked, tf.float32))
    shape = features["input_ids"].shape[:1] + [predictions]  # static, for TPU/XLA batches
    return {
        "input_ids": output_ids,
        "masked_lm_positions": tf.ensure_shape(positions, shape),
        "masked_lm_ids": tf.ensure_shape(label_ids, shape),
        "masked_lm_weights": tf.ensure_shape(weights, shape),
    }
