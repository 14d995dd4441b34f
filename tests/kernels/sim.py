"""A tiny model of concurrent GPU blocks, for the ports of kernels that wait on flags.

Each CUDA block (of each rank) is a Python generator. It yields ``None`` where another block may
run in between (after a remote load or store), or ``until(predicate)`` where the kernel spins on
a flag. ``run`` picks a random ready block at every step, so a port whose kernel forgot a wait
or signals too early reads stale data under some seed, and a protocol that can hang raises
``Deadlock``. The schedules are random but repeatable (seeded).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import Any

Predicate = Callable[[], bool]


@dataclass(frozen=True)
class Until:
    """What a block yields while it spins: it runs again once ``ready()`` is true."""

    ready: Predicate


Block = Generator[Until | None, None, None]


class Deadlock(AssertionError):
    """Every block left is spinning on a flag that nobody will set."""


def until(ready: Predicate) -> Until:
    return Until(ready)


def until_at_least(flags: Any, index: Any, value: int) -> Until:
    """Spin until ``flags[index] >= value``: a flag or counter in (simulated) memory."""
    return Until(lambda: bool(flags[index] >= value))


def run(blocks: Iterable[Block], seed: int) -> int:
    """Run the blocks to completion in a random interleaving; returns the number of steps."""
    rng = random.Random(seed)
    live: list[Block] = list(blocks)
    waiting: dict[int, Until] = {}
    steps = 0
    while live:
        ready = [b for b in live if id(b) not in waiting or waiting[id(b)].ready()]
        if not ready:
            raise Deadlock(f"{len(live)} blocks spin forever")
        chosen = rng.choice(ready)
        waiting.pop(id(chosen), None)
        steps += 1
        try:
            yielded = next(chosen)
        except StopIteration:
            live.remove(chosen)
            continue
        if yielded is not None:
            waiting[id(chosen)] = yielded
    return steps


def run_calls(
    ranks: int,
    grid: int,
    calls: int,
    block: Callable[[int, int, int], Block],
    between: Callable[[int, int], None],
    seed: int,
) -> None:
    """Run ``calls`` back-to-back launches of a kernel on every rank, each rank at its own pace.

    ``block(rank, b, call)`` is block ``b`` of one launch. A rank's next launch starts only when
    all blocks of its previous one have ended (stream order), after ``between(rank, call)`` ran:
    the host or the next kernel reading the outputs and writing the next inputs in place. Other
    ranks may still be inside the previous launch, which is what end barriers are for.
    """
    finished = [[0] * calls for _ in range(ranks)]
    started = [0] * ranks

    def launched(rank: int, b: int, call: int) -> Block:
        yield until_at_least(started, rank, call)
        yield from block(rank, b, call)
        finished[rank][call] += 1

    def stream(rank: int) -> Block:
        for call in range(calls):
            yield until_at_least(finished[rank], call, grid)
            between(rank, call)
            started[rank] = call + 1

    blocks = [launched(r, b, c) for r in range(ranks) for b in range(grid) for c in range(calls)]
    run([*blocks, *(stream(r) for r in range(ranks))], seed)
