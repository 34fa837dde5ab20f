"""Regression runs: is the candidate weaker than the baseline?  Duplicate groups, played until the SPRT decides.

A *group* is one seed (one set of walls) played in every seating the design asks for; its *difference* is the
mean over the four seats of (the candidate's points − the baseline's points in that seat on those walls), per hand.
The groups' differences feed :class:`tournaments.sprt.Sprt`, in seed order, until it reaches a bound or the
hand budget runs out: ``pass``, ``regression`` or ``inconclusive``.

Designs
-------
``1v3`` (default): the candidate sits in each of the four seats against three copies of the baseline (or of
``field``), and the baseline plays the same walls in the candidate's place.  With the baseline as its own field,
that reference table is four copies of one bot: every seating of it is the same match, and its seat totals add up to
zero (scoring is zero-sum), so the reference term of the group, Σ seats of the baseline's points, is exactly 0 and
the match is not played: a group is 4 matches, not 8 (fault penalties are paid to the other seats, so they keep
the sum at zero too).  With another ``field``, the four reference seatings differ and are all played (8 matches).

``2v2``: candidate and baseline alternate seats, C B C B and then B C B C on the same walls (2 matches).

The duplicate rotation is what cancels the luck of the deal: whoever holds the good tiles of a wall, the candidate
held them once.  ``bench/regress.py`` measures the effect (docs/regression.md).

Running
-------
Matches are played like the tournament runner's (``tournaments.runner.run_job``): built-in matches in worker
processes, process-bot matches in this trio process, ``concurrency`` at once, pulled in seed order by a fixed set
of worker tasks, never two matches with a bot process on one seed at once (``tournaments.deals``).  Every
finished match is recorded in a results store (``tournaments.store``) at once; the SPRT is checked whenever the
next group in seed order is complete, so the verdict does not depend on which match finished first: the same
command gives the same walls, the same groups and the same verdict, however many workers.  A run cut short
resumes from its store; a store made with other bots or options is refused unless ``restart``.
"""

from __future__ import annotations

import json
import math
import os
import random
import sqlite3
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any, Literal

import trio

from bots.base import make_policy
from referee.errors import BotError, InputError
from referee.errors import StoreError as BaseStoreError
from referee.game.taiwan16.rules import make_ruleset
from referee.shutdown import Shutdown, watching_signals
from referee.userfiles import loads_json, read_bytes
from wrappers.process import box_pool
from wrappers.spec import BotSpec, SpecError

from .config import diff_identity
from .deals import DealGate
from .lock import StoreLock
from .runner import MatchJob, MatchPlayer
from .schedule import ScheduledMatch
from .sprt import Simulated, Sprt, SprtSettings, fault_excess_p, normal_groups, simulate
from .store import MAX_STORED_SEED, MatchRecord, Store

Verdict = Literal["pass", "regression", "inconclusive", "identical"]
Reason = Literal["llr", "betting", "faults", "identical", "budget", "stopped"]
Design = Literal["1v3", "2v2"]
DESIGNS: tuple[Design, ...] = ("1v3", "2v2")
CANDIDATE, BASELINE, FIELD = "candidate", "baseline", "field"
DEFAULT_HANDS = 16
DEFAULT_MAX_HANDS = 10_000
DEFAULT_STORE = "mjref-regress.sqlite"
DEFAULT_IDENTICAL_GROUPS = 2
"""Groups played answer for answer like the baseline (and nothing else so far) that end a run as ``identical``."""
DEFAULT_TAIL_LOSS = 5120.0
"""The largest loss, and the largest gain, of one group (points over the candidate's seat-hands of one deal, against
the baseline's) that the pass's alpha and the regression's beta cover: ``SprtSettings.tail`` is this over the
seat-hands.  5,120 is two swings of 2,560, the
swing of one seat-hand when a 27-tai self-draw changes sides, 4 × (100 + 20 × 27) under the default scoring: the
audit's rare 2,560-point losses come two to a deal often enough that one swing is too small a bound (see
docs/regression.md)."""
FAULT_P = 0.001
"""The faults verdict: the candidate's share of all faults has a one-sided exact binomial p at most this ..."""
FAULT_MIN = 3
"""... and the candidate made at least this many faults more than the baseline's rate predicts."""
GROUP_SD_16 = 9.6
"""The SD of a 1v3 group's difference with 16-hand matches, measured (bench/regress.py); planning default."""
MAX_MAX_HANDS = 1_000_000
"""The largest hand budget (``--max-hands``): hours of play at the fastest, and the run lists its matches up front."""
MAX_SD = 10_000.0
"""The largest ``--sd`` for ``--plan``, in points per hand (a seat-hand moves at most a few thousand points)."""
MAX_RESAMPLE_BYTES = 32 * 1024 * 1024
"""The largest ``--resample`` file: an earlier run's JSON holds one difference per group, a few bytes each."""
MAX_RESAMPLE = 1_000_000
"""The most differences a ``--resample`` file may hold."""
PLAN_RUNS = 1000
"""Simulated runs per row of ``--plan`` (fewer when they are long: see ``PLAN_WORK``)."""
PLAN_MAX_GROUPS = 1000
"""``--plan`` stops a simulated run undecided at this many groups and says "more than" that many hands: a margin
so small, or a spread so large, that runs take longer is answered in seconds, honestly, not simulated for minutes."""
PLAN_WORK = 60_000
"""The groups ``--plan`` simulates per row at most (all runs together; the defaults take about half of it): once
reached, no further run starts, so a row has at least ``PLAN_WORK // PLAN_MAX_GROUPS`` runs and the plan answers
within seconds whatever its inputs."""


class RegressError(InputError):
    """A regression run that cannot start (bad bots, options, an incompatible store); the message says why."""


@dataclass(frozen=True, slots=True)
class Seating:
    """One match of a group: its tag in the match ID and who sits in seats 1..4 (by role)."""

    tag: str
    rotation: int
    seats: tuple[str, str, str, str]


def _spec_identity(spec: BotSpec) -> dict[str, Any]:
    """A bot's part of a run's identity: its fields, less those a newer mjref added at their defaults (a store that
    an older mjref made is resumed by this one)."""
    out = spec.model_dump(mode="json")
    if out.get("protocol") == "icga":
        del out["protocol"]
    return out


@dataclass(frozen=True)
class RegressSettings:
    """Everything that decides a regression run (and, but for ``max_hands``, its store's identity)."""

    candidate: BotSpec
    baseline: BotSpec
    field: BotSpec | None = None
    design: Design = "1v3"
    rules: Any = dc_field(default_factory=lambda: make_ruleset({"hands": DEFAULT_HANDS}))
    """Either family's ruleset (a Taiwan ``Ruleset``, a ``ClassicalRuleset``): its dump, family included, is part of
    the identity."""
    sprt: SprtSettings = dc_field(default_factory=SprtSettings)
    max_hands: int = DEFAULT_MAX_HANDS
    seeds_from: int = 1
    wall_salt: str | None = None  # None: the store draws a secret salt; a value: walls shared with other stores
    identical_groups: int = DEFAULT_IDENTICAL_GROUPS  # 0: never stop for identical play
    tail_loss: float = DEFAULT_TAIL_LOSS  # points in one group's seat-hands, either way; 0: no bound, the LLR decides

    def __post_init__(self) -> None:
        if self.design not in DESIGNS:
            raise RegressError(f"unknown design {self.design!r} (known: {', '.join(DESIGNS)})")
        if self.field is not None and self.design != "1v3":
            raise RegressError("a field is for the 1v3 design (in 2v2 the candidate and baseline fill the table)")
        if self.seeds_from < 0:
            raise RegressError(f"the first seed must be 0 or more, not {self.seeds_from}")
        if not 1 <= self.max_hands <= MAX_MAX_HANDS:
            raise RegressError(f"--max-hands must be from 1 to {MAX_MAX_HANDS:,}, not {self.max_hands}")
        for role, spec in self.roles().items():
            if spec.builtin is not None:
                try:
                    make_policy(spec.builtin)
                except BotError as exc:
                    raise RegressError(f"{role}: {exc}") from None
        if self.identical_groups < 0:
            raise RegressError(f"--identical-groups must be 0 or more, not {self.identical_groups}")
        if not (math.isfinite(self.tail_loss) and self.tail_loss >= 0):
            raise RegressError(f"--tail-loss must be a number of points, 0 or more, not {self.tail_loss}")
        if 0 < self.tail_loss <= self.sprt.margin * self.seat_hands:
            raise RegressError(f"--tail-loss {self.tail_loss:g} is no more than the margin over a group's "
                               f"{self.seat_hands} seat-hands ({self.sprt.margin * self.seat_hands:g} points): "
                               "it must exceed it, or be 0 (no bounded test)")
        if self.max_hands < self.hands_per_group:
            raise RegressError(f"--max-hands {self.max_hands} is less than one group "
                               f"({self.hands_per_group} hands: {len(self.seatings)} matches of {self.rules.hands})")
        last = self.seed(self.max_groups - 1)
        if last > MAX_STORED_SEED:
            raise RegressError(f"--seeds-from {self.seeds_from}: the budget's groups would play seeds up to {last}, "
                               f"past {MAX_STORED_SEED} (2**63 - 1, the largest a store keeps)")

    # ------------------------------------------------------------------------------------------------ layout
    def roles(self) -> dict[str, BotSpec]:
        out = {CANDIDATE: self.candidate, BASELINE: self.baseline}
        if self.has_field:
            assert self.field is not None
            out[FIELD] = self.field
        return out

    @property
    def has_field(self) -> bool:
        return self.field is not None and self.field != self.baseline

    @property
    def seatings(self) -> list[Seating]:
        """The matches of one group, in the order they are played."""
        if self.design == "2v2":
            c, b = CANDIDATE, BASELINE
            return [Seating("x0", 0, (c, b, c, b)), Seating("x1", 1, (b, c, b, c))]
        other = FIELD if self.has_field else BASELINE
        out = [Seating(f"c{r}", r, _seat_one(CANDIDATE, r, other)) for r in range(4)]
        if self.has_field:
            out += [Seating(f"b{r}", r, _seat_one(BASELINE, r, FIELD)) for r in range(4)]
        return out

    @property
    def hands_per_group(self) -> int:
        return len(self.seatings) * self.rules.hands

    @property
    def seat_hands(self) -> int:
        """The candidate's seat-hands in one group: what a group's difference is the mean over (4 × hands)."""
        return 4 * self.rules.hands

    @property
    def test(self) -> SprtSettings:
        """The SPRT's settings, the tail loss converted to a group difference (points per hand)."""
        return replace(self.sprt, tail=self.tail_loss / self.seat_hands)

    def pairs(self) -> list[tuple[str, str]]:
        """Seatings whose matches are played identically, answer for answer, when the candidate answers every
        question as the baseline would: the same seed, the candidate in one and the baseline in the other's seat."""
        if self.design == "2v2":
            return [("x0", "x1")]
        if self.has_field:
            return [(f"c{r}", f"b{r}") for r in range(4)]
        tags = [s.tag for s in self.seatings]
        return [(tags[0], t) for t in tags[1:]]

    @property
    def max_groups(self) -> int:
        return self.max_hands // self.hands_per_group

    def seed(self, k: int) -> int:
        return self.seeds_from + k

    def group_id(self, k: int) -> str:
        return f"s{self.seed(k)}"

    def group(self, k: int) -> list[ScheduledMatch]:
        """The scheduled matches of group ``k`` (seed ``seeds_from + k``); seat names are the roles."""
        gid = self.group_id(k)
        n = len(self.seatings)
        return [ScheduledMatch(f"{gid}-{s.tag}", k * n + i, gid, self.seed(k), s.rotation, s.seats)
                for i, s in enumerate(self.seatings)]

    def difference(self, totals: Mapping[str, tuple[int, ...]]) -> float:
        """A group's difference from its matches' seat totals (by seating tag): the mean over seats of candidate
        minus baseline points, per hand."""
        hands = self.rules.hands
        if self.design == "2v2":
            diff = 0
            for s in self.seatings:
                t = totals[s.tag]
                diff += sum(t[i] if role == CANDIDATE else -t[i] for i, role in enumerate(s.seats))
            return diff / (4 * hands)
        diff = 0
        for r in range(4):
            diff += totals[f"c{r}"][r]
            if self.has_field:
                diff -= totals[f"b{r}"][r]
            # else: the baseline-only table is zero-sum and seat-symmetric, so its four seats add up to 0
        return diff / (4 * hands)

    def identity(self) -> dict[str, Any]:
        """What decides the results: a store may only be resumed by a run with the same identity."""
        return {
            "kind": "regress",
            "design": self.design,
            "candidate": _spec_identity(self.candidate),
            "baseline": _spec_identity(self.baseline),
            "field": _spec_identity(self.field) if self.has_field and self.field else None,
            "rules": self.rules.model_dump(mode="json"),
            "seeds_from": self.seeds_from,
            "wall_salt": self.wall_salt,
            "sprt": {"margin": self.sprt.margin, "alpha": self.sprt.alpha, "beta": self.sprt.beta,
                     "min_groups": self.sprt.min_groups, "tail_loss": self.tail_loss},
            "identical_groups": self.identical_groups,
        }


def _seat_one(role: str, r: int, other: str) -> tuple[str, str, str, str]:
    seats = [other] * 4
    seats[r] = role
    return (seats[0], seats[1], seats[2], seats[3])


# ---------------------------------------------------------------------------------------------------- state
@dataclass(frozen=True, slots=True)
class Played:
    """What the regression needs of one finished match."""

    id: str
    totals: tuple[int, int, int, int]
    hands: int
    faults: tuple[int, int, int, int]
    digest: str | None = None  # MatchResult.play_digest; None for a match stored without one

    @classmethod
    def of(cls, rec: MatchRecord) -> Played:
        faults = [0, 0, 0, 0]
        for seat in rec.seat_results:
            faults[seat.position - 1] = seat.faults
        return cls(rec.id, rec.totals, rec.hands, (faults[0], faults[1], faults[2], faults[3]), rec.play_digest)


@dataclass(slots=True)
class RegressState:
    """The groups consumed so far, in seed order, the SPRT over their differences, and the two checks beside it:
    identical play and faults."""

    settings: RegressSettings
    sprt: Sprt
    played: dict[str, Played] = dc_field(default_factory=dict)
    groups: int = 0
    hands: int = 0
    differences: list[float] = dc_field(default_factory=list)
    faults: dict[str, int] = dc_field(default_factory=dict)
    seat_hands: dict[str, int] = dc_field(default_factory=dict)  # hands played per role, seat by seat
    field_faults: dict[str, int] = dc_field(default_factory=dict)  # --field seats' faults, by whose table
    field_hands: dict[str, int] = dc_field(default_factory=dict)  # --field seat-hands, by whose table
    identical: int = 0  # groups played answer for answer alike, from the first (stops counting at a difference)
    differed_at: int | None = None  # the first group (1-based) where some answer differed
    stop: tuple[Verdict, Reason] | None = None  # identical, or a regression for faults
    matches_played: int = 0  # by this run
    matches_resumed: int = 0  # found in the store

    @property
    def finished(self) -> bool:
        return self.stop is not None or self.sprt.state is not None or self.groups >= self.settings.max_groups

    def group_ready(self, k: int) -> bool:
        return all(m.id in self.played for m in self.settings.group(k))

    def fault_p(self) -> float:
        return fault_excess_p(self.faults.get(CANDIDATE, 0), self.seat_hands.get(CANDIDATE, 0),
                              self.faults.get(BASELINE, 0), self.seat_hands.get(BASELINE, 0))

    def field_fault_p(self) -> float:
        """The faults test applied to the field's seats: their faults at the candidate's tables against those at
        the baseline's (reported, never a verdict: see docs/regression.md)."""
        return fault_excess_p(self.field_faults.get(CANDIDATE, 0), self.field_hands.get(CANDIDATE, 0),
                              self.field_faults.get(BASELINE, 0), self.field_hands.get(BASELINE, 0))

    def faults_excess(self) -> bool:
        """The faults verdict: the candidate faults more than the baseline beyond ``FAULT_P`` and ``FAULT_MIN``."""
        c, b = self.faults.get(CANDIDATE, 0), self.faults.get(BASELINE, 0)
        nc, nb = self.seat_hands.get(CANDIDATE, 0), self.seat_hands.get(BASELINE, 0)
        expected = b * nc / nb if nb else 0.0
        return c - expected >= FAULT_MIN and self.fault_p() <= FAULT_P

    def advance(self) -> list[float]:
        """Consume every complete group next in seed order (until the test is finished); return their differences."""
        new = []
        s = self.settings
        while not self.finished and self.group_ready(self.groups):
            matches = s.group(self.groups)
            totals = {}
            digests: dict[str, str | None] = {}
            for seating, m in zip(s.seatings, matches):
                p = self.played[m.id]
                totals[seating.tag] = p.totals
                digests[seating.tag] = p.digest
                self.hands += p.hands
                host = CANDIDATE if CANDIDATE in m.seats else BASELINE  # whose table (1v3 with a field)
                for role, n in zip(m.seats, p.faults):
                    self.faults[role] = self.faults.get(role, 0) + n
                    self.seat_hands[role] = self.seat_hands.get(role, 0) + p.hands
                    if role == FIELD:
                        self.field_faults[host] = self.field_faults.get(host, 0) + n
                        self.field_hands[host] = self.field_hands.get(host, 0) + p.hands
            d = s.difference(totals)
            self.differences.append(d)
            self.sprt.add(d)
            self.groups += 1
            new.append(d)
            alike = all(digests[x] is not None and digests[x] == digests[y] for x, y in s.pairs())
            if self.differed_at is None:
                if alike:
                    self.identical += 1
                else:
                    self.differed_at = self.groups
            if self.faults_excess():
                self.stop = ("regression", "faults")
            elif self.differed_at is None and 0 < s.identical_groups <= self.identical:
                self.stop = ("identical", "identical")
        return new

    def _within_bound(self, verdict: Verdict, reason: Reason) -> bool | None:
        """Whether a betting verdict's error rate is proved for this run: no group beyond ``--tail-loss`` on its
        side (gains for a regression, whose rate is beta; losses for a pass, alpha).  None for other verdicts."""
        if reason != "betting":
            return None
        return not (self.sprt.beyond_gains if verdict == "regression" else self.sprt.beyond_losses)

    def result(self) -> RegressResult:
        s = self.settings
        sp = self.sprt
        a, b = s.sprt.bounds
        cf, bf = self.faults.get(CANDIDATE, 0), self.faults.get(BASELINE, 0)
        ch, bh = self.seat_hands.get(CANDIDATE, 0), self.seat_hands.get(BASELINE, 0)
        notes: list[str] = []
        verdict: Verdict
        reason: Reason
        if self.stop is not None:
            verdict, reason = self.stop
        elif sp.state is not None:
            verdict, reason = sp.state, "betting" if s.tail_loss > 0 else "llr"
        else:
            verdict = "inconclusive"
            reason = "budget" if self.groups >= s.max_groups else "stopped"
        if reason == "faults":
            detail = (f"the candidate faulted {cf} times in {ch} seat-hands, the baseline {bf} in {bh}: more than the "
                      f"baseline's rate allows (one-sided exact p {self.fault_p():.2g} <= {FAULT_P:g}), whatever "
                      f"the LLR ({sp.llr:+.2f}) says")
        elif reason == "identical":
            detail = (f"the candidate answered every question as the baseline did, on {self.identical} duplicate "
                      f"groups ({self.hands} hands): the change did not alter play on these deals")
        elif verdict == "pass" and s.tail_loss > 0:
            detail = (f"the pass's betting evidence reached ln(1/alpha) = {s.sprt.evidence_bound:.2f}: not weaker by "
                      f"{s.sprt.margin:g} points per hand or more (alpha holds for any groups losing at most "
                      f"{s.tail_loss:g} points)")
        elif verdict == "regression" and s.tail_loss > 0:
            detail = (f"the regression's betting evidence reached ln(1/beta) = {s.sprt.regression_bound:.2f}: weaker "
                      f"by {s.sprt.margin:g} points per hand or more (beta holds for any groups gaining at most "
                      f"{s.tail_loss:g} points)")
        elif verdict == "pass":
            detail = f"LLR reached the upper bound {b:.2f}: not weaker by {s.sprt.margin:g} points per hand or more"
        elif verdict == "regression":
            detail = f"LLR reached the lower bound {a:.2f}: weaker by {s.sprt.margin:g} points per hand or more"
        elif reason == "budget":
            detail = f"the hand budget ({s.max_hands} hands) ran out before a verdict"
        else:
            detail = "stopped before a verdict"
        if sp.zero_variance and reason != "identical":
            detail += f"; zero variance: every group's difference was {sp.mean:g}"
        if sp.last_hold is not None:
            hold, since = sp.last_hold
            why = (f"the burn-in ({s.sprt.min_groups} groups) allows no verdict before" if hold == "burn-in"
                   else "the verdict waits for the betting tests (what keeps alpha and beta under skew and heavy "
                   f"tails; evidence {sp.evidence:+.2f} for a pass of {s.sprt.evidence_bound:.2f}, "
                   f"{sp.regression_evidence:+.2f} for a regression of {s.sprt.regression_bound:.2f})")
            if sp.state is not None and sp.decided_at is not None:
                notes.append(f"the LLR was past a bound from group {since}; {why}; decided at group {sp.decided_at}")
            elif sp.held is not None:
                notes.append(f"the LLR is past a bound since group {since}, but {why}")
        within = self._within_bound(verdict, reason)
        if within is False:  # the verdict's own rate is not proved: said in the verdict's sentence itself
            rate, count, did, largest = (("beta", sp.beyond_gains, "gained", sp.gain_bound) if verdict == "regression"
                                         else ("alpha", sp.beyond_losses, "lost", sp.loss_bound))
            detail += (f"; but {rate} is not proved for this run: {count} group{'s' if count != 1 else ''} {did} "
                       f"more than --tail-loss {s.tail_loss:g} points (the largest {largest * s.seat_hands:.0f})")
        if sp.beyond:
            sides = [f"{n} {what} (the largest {bound * s.seat_hands:.0f})" for n, what, bound in (
                (sp.beyond_gains, "gains", sp.gain_bound), (sp.beyond_losses, "losses", sp.loss_bound)) if n]
            notes.append(f"{sp.beyond} of {sp.n} groups were beyond --tail-loss {s.tail_loss:g} points: "
                         f"{' and '.join(sides)}. alpha (a pass) and beta (a regression) are proved only for groups "
                         "within a bound set before the run, and no test can promise them beyond it: rare big gains "
                         "not drawn yet make an equal bot look weaker, rare big losses a weaker one look equal. The "
                         "bound on that side was widened to the largest for the rest of the run; set --tail-loss "
                         f"above the largest deal you expect either way (at least {sp.largest * s.seat_hands:.0f})")
        fc, fb = self.field_faults.get(CANDIDATE, 0), self.field_faults.get(BASELINE, 0)
        if fc + fb and (fc - fb * self.field_hands.get(CANDIDATE, 0) / max(1, self.field_hands.get(BASELINE, 0))
                        >= FAULT_MIN and self.field_fault_p() <= FAULT_P):
            notes.append(f"the field faulted {fc} times at the candidate's tables and {fb} at the baseline's: the "
                         "candidate's play provokes the field's faults (their penalties are in its points; no verdict)")
        ci = sp.ci95()
        return RegressResult(
            verdict=verdict, reason=reason, detail=detail, notes=tuple(notes), groups=self.groups, hands=self.hands,
            llr=sp.llr, bounds=(a, b), evidence=sp.evidence if s.tail_loss > 0 else None,
            evidence_bound=s.sprt.evidence_bound,
            regression_evidence=sp.regression_evidence if s.tail_loss > 0 else None,
            regression_evidence_bound=s.sprt.regression_bound,
            mean_diff=sp.mean if sp.n else None, sd=sp.sd if sp.n >= 2 else None, ci95=ci,
            zero_variance=sp.zero_variance, identical_groups=self.identical, differed_at=self.differed_at,
            design=s.design, margin=s.sprt.margin, alpha=s.sprt.alpha,
            beta=s.sprt.beta, max_hands=s.max_hands, hands_per_match=s.rules.hands, tail_loss=s.tail_loss,
            seeds=(s.seed(0), s.seed(self.groups - 1)) if self.groups else None,
            candidate=s.candidate.describe(), baseline=s.baseline.describe(),
            field=s.field.describe() if s.has_field and s.field else None,
            faults={CANDIDATE: cf, BASELINE: bf}, fault_hands={CANDIDATE: ch, BASELINE: bh},
            field_faults={CANDIDATE: fc, BASELINE: fb} if s.has_field else None,
            differences=tuple(self.differences),
            beyond_gains=sp.beyond_gains, beyond_losses=sp.beyond_losses,
            largest_gain=sp.gain_bound * s.seat_hands if sp.beyond_gains else None,
            largest_loss=sp.loss_bound * s.seat_hands if sp.beyond_losses else None, within_bound=within,
            matches_played=self.matches_played, matches_resumed=self.matches_resumed,
        )


EXIT_STATUS: dict[Verdict, int] = {"pass": 0, "identical": 0, "regression": 1, "inconclusive": 3}
"""Exit status per verdict (2 is for usage errors)."""


@dataclass(frozen=True, slots=True)
class RegressResult:
    """A regression run's outcome; ``to_json`` is what ``mjref regress --json`` prints."""

    verdict: Verdict
    reason: Reason
    detail: str
    notes: tuple[str, ...]
    groups: int
    hands: int
    llr: float
    bounds: tuple[float, float]
    evidence: float | None  # the pass's betting log-wealth (None: no bounded test, --tail-loss 0)
    evidence_bound: float  # ln(1/alpha)
    regression_evidence: float | None  # the regression's betting log-wealth (None: --tail-loss 0)
    regression_evidence_bound: float  # ln(1/beta)
    mean_diff: float | None
    sd: float | None
    ci95: tuple[float, float] | None
    zero_variance: bool
    identical_groups: int
    differed_at: int | None
    design: str
    margin: float
    alpha: float
    beta: float
    max_hands: int
    hands_per_match: int
    tail_loss: float
    seeds: tuple[int, int] | None
    candidate: str
    baseline: str
    field: str | None
    faults: dict[str, int]
    fault_hands: dict[str, int]
    field_faults: dict[str, int] | None  # the --field seats' faults at the candidate's and the baseline's tables
    differences: tuple[float, ...]  # the groups' differences in seed order (what --plan --resample reads)
    beyond_gains: int  # groups that gained more than --tail-loss (beta is not proved for a regression then)
    beyond_losses: int  # groups that lost more than --tail-loss (alpha is not proved for a pass then)
    largest_gain: float | None  # the largest of those gains, in points (None: none beyond)
    largest_loss: float | None
    within_bound: bool | None  # a betting verdict's rate is proved for this run (None: not a betting verdict)
    matches_played: int
    matches_resumed: int

    @property
    def exit_status(self) -> int:
        """0 pass or identical, 1 regression, 3 inconclusive (2 is for usage errors)."""
        return EXIT_STATUS[self.verdict]

    def to_json(self) -> dict[str, Any]:
        def r(x: float | None, nd: int = 3) -> float | None:
            return None if x is None else round(x, nd)

        return {
            "verdict": self.verdict, "reason": self.reason, "detail": self.detail, "notes": list(self.notes),
            "hands": self.hands, "groups": self.groups,
            "llr": round(self.llr, 4), "bounds": [round(self.bounds[0], 4), round(self.bounds[1], 4)],
            "evidence": r(self.evidence, 4), "evidence_bound": round(self.evidence_bound, 4),
            "regression_evidence": r(self.regression_evidence, 4),
            "regression_evidence_bound": round(self.regression_evidence_bound, 4),
            "mean_diff": r(self.mean_diff), "sd": r(self.sd),
            "ci95": [r(self.ci95[0]), r(self.ci95[1])] if self.ci95 else None,
            "zero_variance": self.zero_variance, "identical_groups": self.identical_groups,
            "differed_at": self.differed_at, "design": self.design, "margin": self.margin,
            "alpha": self.alpha, "beta": self.beta, "max_hands": self.max_hands, "tail_loss": self.tail_loss,
            "hands_per_match": self.hands_per_match, "seeds": list(self.seeds) if self.seeds else None,
            "candidate": self.candidate, "baseline": self.baseline, "field": self.field, "faults": self.faults,
            "fault_hands": self.fault_hands, "field_faults": self.field_faults,
            "differences": [round(d, 6) for d in self.differences],
            "beyond_bound": {"gains": self.beyond_gains, "losses": self.beyond_losses,
                             "largest_gain": r(self.largest_gain, 1), "largest_loss": r(self.largest_loss, 1)},
            "within_bound": self.within_bound,
            "matches_played": self.matches_played, "matches_resumed": self.matches_resumed,
        }


# ---------------------------------------------------------------------------------------------------- plan, run
@dataclass(slots=True)
class RegressPlan:
    settings: RegressSettings
    store_path: Path
    logs_dir: Path | None
    state: RegressState
    wall_salt: str = ""  # the store's secret salt: matches are played on wall.salted_seed(wall_salt, seed)


def _load_played(store: Store) -> dict[str, Played]:
    faults: dict[str, list[int]] = {}
    for row in store.con.execute("SELECT match_id, position, faults FROM seats"):
        faults.setdefault(row[0], [0, 0, 0, 0])[row[1] - 1] = row[2]
    digests = {row[0]: row[1] for row in store.con.execute("SELECT match_id, digest FROM plays")}
    out = {}
    for row in store.con.execute("SELECT id, hands, total1, total2, total3, total4 FROM matches"):
        f = faults.get(row[0], [0, 0, 0, 0])
        out[row[0]] = Played(row[0], (row[2], row[3], row[4], row[5]), row[1], (f[0], f[1], f[2], f[3]),
                             digests.get(row[0]))
    return out


def plan_regress(settings: RegressSettings, store_path: Path, *, restart: bool = False,
                 logs_dir: Path | None = None) -> RegressPlan:
    """Check the bots, open (or restart) the store, and replay what it already holds through the SPRT."""
    for role, spec in settings.roles().items():
        try:
            spec.check_runnable()
        except SpecError as exc:
            raise RegressError(f"{role}: {exc}") from None
    new = settings.identity()
    try:
        with StoreLock(store_path), Store(store_path) as store:  # one writer per store, as a tournament
            old = store.identity()
            if old is not None and old != new and not restart:
                diffs = diff_identity(old, new)
                raise RegressError(
                    f"{store_path}: this store belongs to another run; differences: " + "; ".join(diffs)
                    + "; use --restart to discard its results, or another --store"
                )
            if restart or (old is not None and old != new):
                store.clear()
                old = None
            if old is None:
                store.initialise("regress", new, settings.wall_salt)
            played = _load_played(store)
            salt = store.wall_salt()
    except BaseStoreError as exc:  # the store's, and its lock's (busy, unreadable)
        raise RegressError(str(exc)) from None
    except sqlite3.DatabaseError as exc:  # store.connect sets its pragmas before it checks the file
        raise RegressError(f"{store_path}: not an mjref results store ({exc})") from None
    state = RegressState(settings, Sprt(settings.test), played, matches_resumed=len(played))
    state.advance()
    return RegressPlan(settings, store_path, logs_dir, state, salt)


def pending_jobs(p: RegressPlan) -> list[MatchJob]:
    """The matches still to play, group by group in seed order, up to the hand budget."""
    s = p.settings
    specs = {CANDIDATE: s.candidate, BASELINE: s.baseline, FIELD: s.field or s.baseline}
    rules = s.rules.model_dump()
    jobs = []
    for k in range(p.state.groups, s.max_groups):
        for m in s.group(k):
            if m.id in p.state.played:
                continue
            jobs.append(MatchJob.make(m, specs, rules, p.logs_dir, p.wall_salt))
    return jobs


GroupCallback = Callable[[RegressState, float], None]


async def run_regress(
    p: RegressPlan,
    *,
    concurrency: int | None = None,
    on_group: GroupCallback | None = None,
    on_match: Callable[[MatchRecord], None] | None = None,
    executor: Any = None,
    shutdown: Shutdown | None = None,
) -> RegressResult:
    """Play groups until the SPRT decides or the budget runs out; every finished match goes to the store.
    ``shutdown``: the one the stop signals stop, which the caller may also stop (a closed stdout)."""
    state = p.state
    if state.finished:
        return state.result()
    jobs = pending_jobs(p)
    workers = max(1, concurrency or os.cpu_count() or 1)
    gate = DealGate(iter(jobs), workers)
    if p.logs_dir is not None:
        p.logs_dir.mkdir(parents=True, exist_ok=True)
    player = MatchPlayer(workers, executor)
    try:
        lock = StoreLock(p.store_path).acquire()  # held for the run: a second regress on this store exits 2 at once
    except BaseStoreError as exc:  # the store's, and its lock's (busy, unreadable)
        raise RegressError(str(exc)) from None
    try:
        store = Store(p.store_path)
    except BaseException:
        lock.release()
        raise

    async def worker(receive: trio.MemoryReceiveChannel[MatchJob], done: trio.CancelScope,
                     shutdown: Shutdown) -> None:
        async for job in receive:
            try:
                rec = await player.play_stoppable(job, shutdown)
            finally:
                gate.done(job)
            if rec is None:  # stopped by a signal: nothing unfinished is recorded
                return
            if store.record(rec):
                state.matches_played += 1
            state.played[rec.id] = Played.of(rec)
            if on_match is not None:
                on_match(rec)
            for d in state.advance():
                if on_group is not None:
                    on_group(state, d)
            if state.finished:
                done.cancel()

    # SIGINT, SIGTERM and SIGHUP stop the matches in order (referee.shutdown); then Interrupted.
    async with watching_signals(shutdown) as shutdown:
        try:
            with player:
                async with box_pool(workers) as player.boxes, trio.open_nursery() as nursery:
                    send, receive = trio.open_memory_channel[MatchJob](0)
                    async with send:
                        for _ in range(workers):
                            nursery.start_soon(worker, receive.clone(), nursery.cancel_scope, shutdown)
                        await receive.aclose()
                        with shutdown.scope():
                            # in seed order (the next group is always the one being completed), but never two
                            # matches on one seed at once: a group's matches share its walls (tournaments.deals)
                            while (job := await gate.next()) is not None:
                                await send.send(job)
        finally:
            store.close()
            lock.release()
    shutdown.raise_if_stopped()
    return state.result()


def regress(settings: RegressSettings, store_path: Path, *, restart: bool = False, logs_dir: Path | None = None,
            **kwargs: Any) -> RegressResult:
    """Synchronous convenience: plan and run; see :func:`run_regress` for the keyword arguments."""
    p = plan_regress(settings, store_path, restart=restart, logs_dir=logs_dir)
    return trio.run(lambda: run_regress(p, **kwargs))


def planning_sd(hands: int) -> float:
    """The group SD assumed for planning when none is given: the measured one, scaled to the match length."""
    return GROUP_SD_16 * math.sqrt(16 / hands)


def resampled_groups(differences: Sequence[float], mean: float) -> Callable[[random.Random], float]:
    """Group differences drawn from real ones (an earlier run's, or bench/regress.py --save-groups), shifted to
    this mean: their shape, tails and spread, at the difference a plan asks about."""
    if len(differences) < 2:
        raise RegressError("resampling needs at least two group differences")
    centre = math.fsum(differences) / len(differences)
    shifted = [d - centre + mean for d in differences]
    return lambda rng: rng.choice(shifted)


def check_plan_sd(sd: float | None) -> None:
    """``--sd``: None (the default), or a positive finite number of points per hand up to ``MAX_SD``."""
    if sd is not None and not (0 < sd <= MAX_SD):  # false for nan too
        raise RegressError(f"--sd must be a number of points per hand above 0 and at most {MAX_SD:g}, not {sd}")


def load_differences(path: Path) -> list[float]:
    """The ``differences`` of a JSON file (bench/regress.py --save-groups writes one; so does ``--json`` of
    ``mjref regress``, as ``differences``): a list of at least two finite numbers, or a clear error."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise RegressError(f"{path}: cannot read ({exc.strerror})") from None
    if size > MAX_RESAMPLE_BYTES:
        raise RegressError(f"--resample {path}: {size:,} bytes, more than the {MAX_RESAMPLE_BYTES:,} a file of "
                           "differences may have")
    raw = read_bytes(path, RegressError, MAX_RESAMPLE_BYTES)  # not /dev/zero nor a FIFO: they never end
    try:
        data = loads_json(raw.decode("utf-8"))  # bounded nesting: 100,000 '[' are a reason, not a RecursionError
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RegressError(f"{path}: not JSON ({exc})") from None
    diffs = data.get("differences") if isinstance(data, dict) else None
    if not isinstance(diffs, list) or len(diffs) < 2:
        raise RegressError(f"{path}: expected an object with \"differences\", a list of at least two numbers")
    if len(diffs) > MAX_RESAMPLE:
        raise RegressError(f"--resample {path}: {len(diffs):,} differences, more than the {MAX_RESAMPLE:,} a plan "
                           "resamples")
    for i, d in enumerate(diffs):
        if isinstance(d, bool) or not isinstance(d, int | float) or not math.isfinite(d):
            raise RegressError(f"{path}: differences[{i}] is not a finite number: {d!r}")
    return [float(d) for d in diffs]


def simulate_run(settings: RegressSettings, mean: float, sd: float, *, runs: int = PLAN_RUNS, seed: int = 1,
                 differences: Sequence[float] | None = None, max_groups: int = PLAN_MAX_GROUPS,
                 max_work: int | None = PLAN_WORK) -> Simulated:
    """Simulated runs of this test (the real ``Sprt``: burn-in, small-sample factor, betting test, overshoot),
    played to a verdict or ``max_groups``, on normal group differences of this mean and SD, or on ``differences``
    resampled and shifted to this mean; ``Simulated.within`` counts how they end within the hand budget.  At most
    ``max_work`` groups in all (fewer runs when they are long): see ``PLAN_WORK``."""
    draw = resampled_groups(differences, mean) if differences is not None else normal_groups(mean, sd)
    return simulate(settings.test, draw, runs=runs, max_groups=max_groups, seed=seed, budget=settings.max_groups,
                    max_work=max_work)


def expected_hands(mean: float, sd: float, settings: RegressSettings, *, runs: int = PLAN_RUNS) -> float:
    """Hands to a verdict expected when the groups' differences have this mean and spread: the mean of
    simulated runs of the real test (not the Brownian formula, which leaves out burn-in, inflation and
    overshoot and came out ~2x low in the slowest case)."""
    return simulate_run(settings, mean, sd, runs=runs).mean_groups * settings.hands_per_group


def plan_table(settings: RegressSettings, sd: float | None = None, *, runs: int = PLAN_RUNS,
               differences: Sequence[float] | None = None) -> dict[str, Any]:
    """What ``mjref regress --plan`` prints: per true mean difference, how runs end within the budget, the hands
    they take on average, and the budget by which 95 % of runs end decided.  The groups are normal with the SD
    ``sd`` (default: the measured one, scaled to the match length), or ``differences`` resampled.

    The work is bounded (``PLAN_MAX_GROUPS``, ``PLAN_WORK``): a row whose runs reach the cap undecided has
    ``capped`` > 0, its ``expected_hands`` is only a lower bound (``expected_hands_more``), and a
    ``hands_for_95pct_decided`` past the cap is None, printed as "more than ``cap_hands``"."""
    check_plan_sd(sd)
    if not 1 <= runs <= 100_000:
        raise RegressError(f"simulated runs must be from 1 to 100,000, not {runs}")
    if differences is not None:
        sd = statistics.stdev(differences)
    if sd is None and getattr(settings.rules, "family", "taiwan16") != "taiwan16":
        raise RegressError("--plan under classical rules needs --sd or --resample: the default spread was measured "
                           "on Taiwan hands, whose points are another scale")
    sd = planning_sd(settings.rules.hands) if sd is None else sd
    m = settings.sprt.margin
    rows: list[dict[str, Any]] = []
    for case, mean in (("better by the margin", m), ("equal", 0.0), ("halfway (the slowest)", -m / 2),
                       ("regression of the margin", -m)):
        sim = simulate_run(settings, mean, sd, runs=runs, differences=differences)
        hpg = settings.hands_per_group
        passed, failed = sim.within if sim.within is not None else (sim.passed, sim.failed)
        rows.append({
            "case": case, "mean_diff": mean,
            "pass": round(passed, 4), "regression": round(failed, 4),
            "inconclusive": round(1 - passed - failed, 4),
            "expected_hands": round(sim.mean_groups * hpg), "expected_hands_more": sim.capped > 0,
            "hands_for_95pct_decided": sim.p95_groups * hpg if sim.p95_groups is not None else None,
            "runs": sim.runs, "capped": round(sim.capped, 4),
        })
    needed = [int(r["hands_for_95pct_decided"]) for r in rows if r["hands_for_95pct_decided"] is not None]
    complete = len(needed) == len(rows)
    return {
        "margin": m, "alpha": settings.sprt.alpha, "beta": settings.sprt.beta, "group_sd": round(sd, 3),
        "groups": "resampled" if differences is not None else "normal",
        "hands_per_match": settings.rules.hands, "hands_per_group": settings.hands_per_group,
        "design": settings.design, "tail_loss": settings.tail_loss, "max_hands": settings.max_hands,
        "runs": runs, "cap_hands": PLAN_MAX_GROUPS * settings.hands_per_group, "cases": rows,
        "budget_for_95pct_decided": max(needed) if complete else None,
    }


__all__ = [
    "DEFAULT_IDENTICAL_GROUPS",
    "DEFAULT_TAIL_LOSS",
    "EXIT_STATUS",
    "MAX_MAX_HANDS",
    "MAX_RESAMPLE",
    "MAX_RESAMPLE_BYTES",
    "MAX_SD",
    "PLAN_MAX_GROUPS",
    "PLAN_RUNS",
    "PLAN_WORK",
    "check_plan_sd",
    "FAULT_MIN",
    "FAULT_P",
    "Verdict",
    "plan_table",
    "load_differences",
    "resampled_groups",
    "planning_sd",
    "simulate_run",
    "DEFAULT_HANDS",
    "DEFAULT_MAX_HANDS",
    "DEFAULT_STORE",
    "DESIGNS",
    "Design",
    "RegressError",
    "RegressPlan",
    "RegressResult",
    "RegressSettings",
    "RegressState",
    "expected_hands",
    "pending_jobs",
    "plan_regress",
    "regress",
    "run_regress",
]
