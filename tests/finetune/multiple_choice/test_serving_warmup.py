"""The multiple choice export's TF Serving warm-up records replay as the model server runs them."""

from __future__ import annotations

import pytest

from tests.warmup_replay import assert_replayed

pytestmark = pytest.mark.slow  # Needs the trained multiple-choice run.


def test_warmup_requests_replay(choice_run):
    _, results = choice_run
    results = assert_replayed(results["saved_model"])
    assert results["choose"]["probabilities"].shape == (1, 2)  # Two real options.
