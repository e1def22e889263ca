"""`Choice`: what the runtime chose for one speed-only form, and the process's current choices.

`albert_tf.runtime.configure` sets them (once per process); the runtime's own code reads them
(`chosen`): e.g. `frozen_inference` freezes weights only where `frozen_serving` was chosen.
Before `configure`, nothing is chosen and the plain reference runs everywhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping


@dataclasses.dataclass(frozen=True)
class Case:
    """One measured case of a form (e.g. one chain in one dtype): seconds fast vs plain.

    `margin`: how much faster the fast form must be to be kept (0.05: 5%), for a form with a
    cost the probe does not see (e.g. compiling per input shape).
    """

    fast_seconds: float
    plain_seconds: float
    margin: float = 0.0

    @property
    def kept(self) -> bool:
        """Whether the fast form was faster here (by the margin).

        >>> Case(0.97, 1.0).kept, Case(0.97, 1.0, margin=0.05).kept
        (True, False)
        """
        return self.fast_seconds * (1.0 + self.margin) < self.plain_seconds


@dataclasses.dataclass(frozen=True)
class Choice:
    """Whether a form runs, where that came from (`source`), why, and the probe's figures.

    `source` is one of "option", "environment", "accelerator", "probe", "cached probe",
    "probe failed". `cases` holds the probe's figures; where a form applies per case (the fused
    chains, per chain and dtype), `keeps(case)` says whether the fast form runs in that case.
    """

    form: str
    enabled: bool
    source: str
    reason: str
    cases: Mapping[str, Case] = dataclasses.field(default_factory=dict)

    def keeps(self, case: str) -> bool:
        """Whether the fast form runs in `case` (unmeasured cases follow `enabled`)."""
        measured = self.cases.get(case)
        return self.enabled if measured is None else self.enabled and measured.kept

    def as_dict(self) -> dict:
        """A JSON-ready description: choice, source, reason, and per case ms and ratio."""
        description = {
            "enabled": self.enabled,
            "source": self.source,
            "reason": self.reason,
        }
        if self.cases:
            description["cases"] = {
                name: _case_dict(case) for name, case in sorted(self.cases.items())
            }
        return description


def _case_dict(case: Case) -> dict:
    figures = {
        "fast_ms": round(case.fast_seconds * 1e3, 3),
        "plain_ms": round(case.plain_seconds * 1e3, 3),
        "plain_over_fast": round(case.plain_seconds / case.fast_seconds, 3),
        "fast_form_kept": case.kept,
    }
    if case.margin:
        figures["margin"] = case.margin
    return figures


_current: dict[str, Choice] = {}


def chosen(form: str, case: str | None = None) -> bool:
    """Whether `form` runs now (in `case`, if given); False before `configure`."""
    choice = _current.get(form)
    if choice is None:
        return False
    return choice.enabled if case is None else choice.keeps(case)


def current_choices() -> dict[str, Choice]:
    """The choices in force, by form name (empty before `configure`)."""
    return dict(_current)


def set_choices(choices: Mapping[str, Choice]) -> None:
    """Replaces the choices in force (the runtime's `configure` and `reset`)."""
    _current.clear()
    _current.update(choices)
