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
