"""The span qa export's TF Serving warm-up records replay as the model server runs them."""

from __future__ import annotations

import pytest

from tests.warmup_replay import assert_replayed

pytestmark = pytest.mark.slow  # Needs the trained span QA run.


@pytest.mark.slow  # Over 5 s: builds on the span QA run.
def test_warmup_requests_replay(span_qa_run):
    _, results = span_qa_run
    assert_replayed(results["saved_model"])
