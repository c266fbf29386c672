"""Seeded discrete-event simulation of a closed network, the oracle of calibration spec §9.

N users with exponential think time Z cycle through single-server FCFS stations with
exponential service (one visit each, in series). After a warm-up, per-station residence
times (departure − arrival at the station) and the throughput (completed cycles per
second) are recorded. Two implementations: a small heapq event loop (fast, used for the
coverage study) and a simpy process model (an independent library).
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np


def simulate_heapq(
    demands, population: int, think: float, horizon: float, warmup: float, seed: int,
    utilizations: bool = False,
) -> np.ndarray:
    """Return [T_1, ..., T_K, f] measured between ``warmup`` and ``horizon``, followed by the
    utilizations [U_1, ..., U_K] (busy time / measured time) when ``utilizations``."""
    rng = np.random.default_rng(seed)
    k_count = len(demands)
    events: list[tuple[float, int, int, int]] = []  # (time, sequence, station, user)
    sequence = 0
    queues = [deque() for _ in range(k_count)]
    arrival = np.zeros((population, k_count))
    totals = np.zeros(k_count)
    counts = np.zeros(k_count)
    cycles = 0
    busy = np.zeros(k_count)
    started = np.zeros(k_count)
    for user in range(population):
        heapq.heappush(events, (rng.exponential(think) if think > 0 else 0.0, sequence, -1, user))
        sequence += 1

    def arrive(now: float, station: int, user: int) -> None:
        nonlocal sequence
        arrival[user, station] = now
        queues[station].append(user)
        if len(queues[station]) == 1:
            started[station] = now
            heapq.heappush(
                events, (now + rng.exponential(demands[station]), sequence, station, user)
            )
            sequence += 1

    while events:
        now, _, station, user = heapq.heappop(events)
        if now > horizon:
            break
        if station == -1:  # think time over
            arrive(now, 0, user)
            continue
        queues[station].popleft()
        if now >= warmup:
            busy[station] += now - max(started[station], warmup)
        if arrival[user, station] >= warmup:
            totals[station] += now - arrival[user, station]
            counts[station] += 1
        if queues[station]:
            started[station] = now
            nxt = queues[station][0]
            heapq.heappush(events, (now + rng.exponential(demands[station]), sequence, station,
                                    nxt))
            sequence += 1
        if station + 1 < k_count:
            arrive(now, station + 1, user)
        else:
            if now >= warmup:
                cycles += 1
            heapq.heappush(
                events, (now + (rng.exponential(think) if think > 0 else 0.0), sequence, -1,
                         user)
            )
            sequence += 1
    span = horizon - warmup
    measured = np.concatenate([totals / counts, [cycles / span]])
    return np.concatenate([measured, busy / span]) if utilizations else measured


def simulate_simpy(
    demands, population: int, think: float, horizon: float, warmup: float, seed: int
) -> np.ndarray:
    """Same measurements with simpy (FCFS ``Resource`` of capacity 1 per station)."""
    import simpy

    rng = np.random.default_rng(seed)
    env = simpy.Environment()
    stations = [simpy.Resource(env, capacity=1) for _ in demands]
    totals = np.zeros(len(demands))
    counts = np.zeros(len(demands))
    cycles = [0]

    def user():
        while True:
            yield env.timeout(rng.exponential(think))
            for k, station in enumerate(stations):
                start = env.now
                with station.request() as request:
                    yield request
                    yield env.timeout(rng.exponential(demands[k]))
                if start >= warmup:
                    totals[k] += env.now - start
                    counts[k] += 1
            if env.now >= warmup:
                cycles[0] += 1

    for _ in range(population):
        env.process(user())
    env.run(until=horizon)
    return np.concatenate([totals / counts, [cycles[0] / (horizon - warmup)]])
