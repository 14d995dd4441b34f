"""Mock interview: N questions drawn as an interviewer would, one at a time against a clock,
then the key-point checklist and the reference answer; a report at the end.

The draw (README "Mock interviews"): every active, unsuspended card of the deck (of the topic,
if one is asked for) gets a weight

    1 + 3 if it was never answered well (no graded review of 4 or more; new cards included)
      + 2 × how overdue it is (days overdue ÷ interval, at most 1)
      + 2 × (2.5 − EF) ÷ 1.2 (0 at the starting EF, 2 at the floor of 1.3)
      + 3 × the share of its key points missed in the checks recorded so far,

and each question comes from a topic asked least so far in this interview (never the topic
just asked while another one is left), a card of it picked at random with probability in
proportion to its weight. A mock session changes no SM-2 state: a question changes the
schedule only when the learner counts it as a review, which is then a normal graded review.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from datetime import date, datetime

from sqlalchemy import Engine

from infracards.errors import InfracardsError
from infracards.records import CardRecord, MockOptions, StudyPrefs
from infracards.scheduler import study_day
from infracards.services.answers import AnswerBook
from infracards.services.keypoints import KeyPointCheck, open_check
from infracards.services.library import require_deck
from infracards.services.mock_history import MockReport, QuestionResult
from infracards.services.study import Graded, grade_card
from infracards.store.db import transaction
from infracards.store.practice import (
    DrawCandidate,
    MockAnswer,
    deck_topics,
    draw_candidates,
    end_mock,
    move_due_to,
    save_mock_answer,
    start_mock,
)
from infracards.store.reads import find_card, load_card, load_prefs

DEFAULT_QUESTIONS = 5
MAX_QUESTIONS = 50
NEVER_WELL = 3.0
OVERDUE = 2.0
LOW_EF = 2.0
MISSED_POINTS = 3.0
START_EF_CENTI = 250
EF_SPAN_CENTI = 120
"""From the starting EF (2.50) down to SM-2's floor (1.30)."""
WELL_ANSWERED = 4


def draw_weight(card: DrawCandidate, today: date) -> float:
    """How much an interviewer would want to ask this card (the rule in the module doc)."""
    weight = 1.0
    if card.best_grade is None or card.best_grade < WELL_ANSWERED:
        weight += NEVER_WELL
    if card.due is not None and card.due < today:
        weight += OVERDUE * min(1.0, (today - card.due).days / max(1, card.interval))
    weight += LOW_EF * max(0, START_EF_CENTI - card.easiness_centi) / EF_SPAN_CENTI
    if card.points_checked:
        weight += MISSED_POINTS * card.points_missed / card.points_checked
    return weight


def draw_questions(
    candidates: list[DrawCandidate], count: int, *, today: date, rng: random.Random
) -> list[DrawCandidate]:
    """Up to ``count`` distinct cards, topics mixed, weak cards favoured (pure; see above)."""
    left = list(candidates)
    weights = {card.card_pk: draw_weight(card, today) for card in left}
    asked: Counter[str] = Counter()
    drawn: list[DrawCandidate] = []
    while left and len(drawn) < count:
        fewest = min(asked[card.topic] for card in left)
        pool = [card for card in left if asked[card.topic] == fewest]
        if drawn and len({card.topic for card in pool}) > 1:
            pool = [card for card in pool if card.topic != drawn[-1].topic]
        [card] = rng.choices(pool, weights=[weights[card.card_pk] for card in pool])
        drawn.append(card)
        asked[card.topic] += 1
        left.remove(card)
    return drawn


# --- the interview ----------------------------------------------------------------------------


class MockInterview:
    """One mock interview of one deck, from the draw to its report (no Textual here).

    The clock is ``timer`` (monotonic seconds; a fake one in tests): each question's countdown
    starts when it is shown and stops when its checklist is revealed, by the learner or by the
    time running out (``tick``)."""

    def __init__(
        self,
        engine: Engine,
        *,
        deck_id: str,
        clock: Callable[[], datetime],
        timer: Callable[[], float] = time.monotonic,
        answers: AnswerBook | None = None,
        questions: int = DEFAULT_QUESTIONS,
        minutes: int | None = None,
        topic: str | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if not 1 <= questions <= MAX_QUESTIONS:
            raise InfracardsError(f"a mock interview has 1 to {MAX_QUESTIONS} questions")
        if minutes is not None and not 1 <= minutes <= 60:
            raise InfracardsError("a mock interview question takes 1 to 60 minutes")
        self.engine = engine
        self.deck_id = deck_id
        self.clock = clock
        self.timer = timer
        self.answers = answers or AnswerBook()
        self.planned = questions
        self.minutes = minutes
        self.topic = topic
        self.rng = rng or random.Random()
        self.prefs = StudyPrefs()
        self.mock_id: int | None = None
        self.started_at = clock()
        self.cards: list[int] = []
        self.index = 0
        self.card: CardRecord | None = None
        self.check: KeyPointCheck | None = None
        self.revealed = False
        self.timed_out = False
        self.notes = ""
        self.counted: Graded | None = None
        self.shown_at = 0.0
        self.seconds_used = 0
        self.results: list[QuestionResult] = []

    @property
    def seconds_per_question(self) -> int:
        return 60 * (self.minutes or self.prefs.mock_minutes)

    def today(self) -> date:
        return study_day(self.clock(), rollover_hour=self.prefs.rollover_hour)

    def start(self) -> CardRecord | None:
        """Draw the questions and show the first one. Nothing is written yet: the interview
        enters the history with its first answered question (so opening it stays fast)."""
        with transaction(self.engine) as session:
            self.prefs = load_prefs(session)
            today = self.today()
            candidates = draw_candidates(
                session,
                deck_id=self.deck_id,
                today=today,
                locked_too=self.prefs.study_locked,
                topic=self.topic,
                rng=self.rng,
            )
            drawn = draw_questions(candidates, self.planned, today=today, rng=self.rng)
            if not drawn:
                where = f" on topic {self.topic!r}" if self.topic else ""
                raise InfracardsError(f"deck {self.deck_id} has no card to ask{where}")
            self.cards = [card.card_pk for card in drawn]
            self.started_at = self.clock()
            self._show(session_card=load_card(session, pk=self.cards[0]))
        return self.card

    def begin_now(self) -> None:
        """The interview begins when it is first shown, which may be a while after its draw
        (the app draws one ahead while Home waits for a key): its start and the first
        question's countdown are taken now."""
        self.started_at = self.clock()
        self.shown_at = self.timer()

    @property
    def total(self) -> int:
        return len(self.cards)

    @property
    def remaining_seconds(self) -> float:
        """Seconds left on this question's clock (frozen once revealed)."""
        used = self.seconds_used if self.revealed else self.timer() - self.shown_at
        return max(0.0, self.seconds_per_question - used)

    def tick(self) -> bool:
        """Called as the clock runs: True when the time has just run out (the checklist and
        the reference answer are then revealed)."""
        if self.card is None or self.revealed or self.remaining_seconds > 0:
            return False
        self.reveal(timed_out=True)
        return True

    def reveal(self, *, timed_out: bool = False) -> KeyPointCheck | None:
        """Stop the clock and turn the question over: its checklist, if it has one."""
        if self.card is None:
            raise InfracardsError("the interview has no question in front")
        if not self.revealed:
            elapsed = self.timer() - self.shown_at
            self.seconds_used = round(min(elapsed, self.seconds_per_question))
            self.timed_out = timed_out or elapsed >= self.seconds_per_question
            self.revealed = True
            self.check = open_check(self.answers, self.card)
        return self.check

    def reopen_check(self) -> KeyPointCheck | None:
        """After an unlock: the revealed question's checklist, which a sealed card lacked."""
        if self.revealed and self.card is not None and self.check is None:
            self.check = open_check(self.answers, self.card)
        return self.check

    def toggle_point(self, index: int) -> bool:
        return self.revealed and self.check is not None and self.check.toggle(index)

    def toggle_recognised(self) -> bool:
        if not self.revealed or self.check is None:
            return False
        self.check.toggle_recognised()
        return True

    @property
    def suggested_grade(self) -> int | None:
        return self.check.suggested if self.check is not None else None

    def count_as_review(self, quality: int) -> Graded:
        """Count this question as a normal graded review (SM-2 moves as in a review; the
        points ticked go with it). Once per question."""
        card = self.card
        if card is None or not self.revealed:
            raise InfracardsError("reveal the question before counting it as a review")
        if self.counted is not None:
            raise InfracardsError(f"{card.card_id} was counted as a review already")
        self.counted = grade_card(
            self.engine,
            card=card,
            quality=quality,
            drill=False,
            now=self.clock(),
            today=self.today(),
            duration_ms=self.seconds_used * 1000,
            session_id=None,
            recalled=self.check.recorded() if self.check is not None else None,
            leech_threshold=self.prefs.leech_threshold,
        )
        return self.counted

    def next(self) -> CardRecord | None:
        """Keep this question's outcome (time, points, notes) and show the next one; None
        once every question was asked (then ``finish``)."""
        card = self.card
        if card is None:
            raise InfracardsError("the interview has no question in front")
        if not self.revealed:
            self.reveal()
        recalled = self.check.recorded() if self.check is not None else None
        answer = MockAnswer(
            card_pk=card.pk,
            position=self.index + 1,
            seconds_used=self.seconds_used,
            timed_out=self.timed_out,
            recalled=recalled,
            notes=self.notes,
            review_id=self.counted.review_id if self.counted else None,
        )
        with transaction(self.engine, write=True) as session:
            if self.mock_id is None:
                self.mock_id = start_mock(
                    session,
                    deck_id=self.deck_id,
                    now=self.started_at,
                    study_day=study_day(self.started_at, rollover_hour=self.prefs.rollover_hour),
                    questions=self.total,
                    seconds_per_question=self.seconds_per_question,
                    topic=self.topic,
                )
            save_mock_answer(session, mock_id=self.mock_id, answer=answer)
            following = (
                load_card(session, pk=self.cards[self.index + 1])
                if self.index + 1 < self.total
                else None
            )
        self.results.append(
            QuestionResult(
                card_id=card.card_id,
                topic=card.topic,
                prompt=card.prompt,
                recalled=recalled,
                seconds_used=self.seconds_used,
                timed_out=self.timed_out,
                counted=self.counted is not None,
                notes=self.notes,
            )
        )
        self.index += 1
        self._show(session_card=following)
        return self.card

    def finish(self) -> MockReport:
        """End the interview (also when left early: the questions answered so far count; one
        left before any answer leaves no trace)."""
        if self.mock_id is not None:
            with transaction(self.engine, write=True) as session:
                end_mock(session, mock_id=self.mock_id, now=self.clock())
        return self.report()

    def report(self) -> MockReport:
        return MockReport(
            mock_id=self.mock_id or 0,
            deck_id=self.deck_id,
            started_at=self.started_at,
            study_day=self.today(),
            seconds_per_question=self.seconds_per_question,
            topic=self.topic,
            questions=tuple(self.results),
        )

    def _show(self, *, session_card: CardRecord | None) -> None:
        self.card = session_card
        self.check = None
        self.revealed = self.timed_out = False
        self.notes = ""
        self.counted = None
        self.seconds_used = 0
        self.shown_at = self.timer()


def check_options(engine: Engine, options: MockOptions) -> None:
    """What `infracards mock` checks before opening the app: one message for each mistake."""
    deck_id = options.deck_id
    require_deck(engine, deck_id)
    if options.questions is not None and not 1 <= options.questions <= MAX_QUESTIONS:
        raise InfracardsError(f"--questions must be from 1 to {MAX_QUESTIONS}")
    if options.minutes is not None and not 1 <= options.minutes <= 60:
        raise InfracardsError("--minutes must be from 1 to 60")
    if options.topic is not None:
        with transaction(engine) as session:
            known = deck_topics(session, deck_id=deck_id)
        if options.topic not in known:
            raise InfracardsError(
                f"deck {deck_id} has no topic {options.topic!r};"
                f" topics: {', '.join(known) or 'none'}"
            )


def add_missed_to_today(engine: Engine, *, report: MockReport, now: datetime) -> int:
    """Put the cards whose key points were missed into today's review: each becomes due today
    (EF, repetitions and interval stay; its grade there is a normal SM-2 review). Returns how
    many cards moved (those already due today are in it anyway)."""
    if not report.missed:
        return 0
    with transaction(engine, write=True) as session:
        today = study_day(now, rollover_hour=load_prefs(session).rollover_hour)
        pks = [
            card.pk
            for card_id in report.missed
            for card in find_card(session, card_id=card_id, deck_id=report.deck_id)
        ]
        return move_due_to(session, card_pks=pks, today=today)
