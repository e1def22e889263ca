"""available_cores: the builder's default number of worker processes."""

from __future__ import annotations

import os

from albert_tf.data import parallelism
from albert_tf.data.parallelism import available_cores


def test_counts_the_cores_this_process_may_use(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert available_cores() == 3


def test_falls_back_to_cpu_count_without_an_affinity_mask(monkeypatch):
    monkeypatch.delattr(parallelism.os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert available_cores() == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert available_cores() == 6
