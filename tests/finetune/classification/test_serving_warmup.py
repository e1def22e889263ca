"""The classification export's TF Serving warm-up records replay as the model server runs them."""

from __future__ import annotations

import pytest

from tests.warmup_replay import assert_replayed

pytestmark = pytest.mark.slow  # Needs the trained classification run.


def test_warmup_requests_replay(finetuned_run):
    _, results = finetuned_run
    assert_replayed(results["saved_model"])
