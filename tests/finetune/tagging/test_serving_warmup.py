"""The tagging export's TF Serving warm-up records replay as the model server runs them."""

from __future__ import annotations

import pytest

from tests.warmup_replay import assert_replayed

pytestmark = pytest.mark.slow  # Needs the trained tagging run.


def test_warmup_requests_replay(tagging_run):
    _, results = tagging_run
    results = assert_replayed(results["saved_model"])
    assert results["tag_words"]["num_words"].tolist() == [9]  # A real sentence's words.
