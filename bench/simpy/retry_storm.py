"""The retry storm of document 000 as a SimPy model: squall's comparison point.

The model (seed document 000, model KK15; squall's `scenarios/retry-storm.squall`):

* users send 4 requests a round into `edge`, through a fractional accumulator;
* `edge -> api -> worker -> db`; each of edge, api and worker makes up to 3
  tries at its downstream, waiting a fixed 4 rounds after a failed try;
  nested layers retry like an odometer (the deepest uses up its tries first,
  then the layer above retries and starts the layer below afresh), so one
  request makes at most 3^3 = 27 calls at `db`;
* `db` serves 12 calls a round and refuses the rest; a brownout drops it to 1
  call a round for rounds 101..160 (and, scaled, again every `--period` rounds);
* calls take no time, and within a round calls meet `db`'s capacity oldest
  request first.

`--scale K` multiplies demand and both capacities by K, as squall's
`throughput` example and `engine` benchmark do. With the defaults (K = 1,
400 rounds) it prints the document's numbers: calls/round 25.00 during
101..160, amplification 6.25, success 0.0400, recovery 25 rounds, peak 49.

Written as SimPy is usually written: every request is a process, a retry wait
is `yield env.timeout(spacing)`. A call takes no time, so a service calls its
downstream with `yield from` rather than through a sub-process: the cheapest
idiomatic form, and the one that keeps SimPy's event order equal to squall's
(events at equal times run in the order they were scheduled, in both).
"""

import argparse
import sys
import time

import simpy

NEVER = -1


class Request:
    """One user request: its id and the last round `db` saw it."""

    __slots__ = ("id", "seen")

    def __init__(self, rid):
        self.id = rid
        self.seen = NEVER


class Stats:
    """What the run measured: per-round series at `db`, unique ids per window."""

    def __init__(self, rounds, windows):
        self.arrivals = [0] * (rounds + 1)
        self.db_calls = [0] * (rounds + 1)
        self.db_ok = [0] * (rounds + 1)
        self.windows = windows
        self.unique = [0] * len(windows)
        self.completed = 0
        self.dropped = 0


class Dependency:
    """`db`: serves `capacity` calls a round and refuses the rest."""

    def __init__(self, env, stats, capacity, fault_capacity, brownouts):
        self.env = env
        self.stats = stats
        self.name = "db"
        self.capacity = capacity
        self.fault_capacity = fault_capacity
        self.brownouts = brownouts
        self.calls = 0
        self.round = NEVER
        self.left = 0

    def capacity_at(self, t):
        for start, end in self.brownouts:
            if start <= t <= end:
                return self.fault_capacity
        return self.capacity

    def call(self, req):
        """Answers at once; a generator only to share the services' interface."""
        t = self.env.now
        s = self.stats
        self.calls += 1
        s.db_calls[t] += 1
        if req.seen != t:
            for w, (start, end) in enumerate(s.windows):
                if start <= t <= end and req.seen < start:
                    s.unique[w] += 1
            req.seen = t
        if self.round != t:
            self.round = t
            self.left = self.capacity_at(t)
        if self.left == 0:
            return False
        self.left -= 1
        s.db_ok[t] += 1
        return True
        yield  # noqa: unreachable -- makes `call` a generator that never waits


class Service:
    """A service that makes up to `attempts` tries at its downstream."""

    def __init__(self, env, name, downstream, attempts, spacing):
        self.env = env
        self.name = name
        self.downstream = downstream
        self.attempts = attempts
        self.spacing = spacing
        self.calls = 0

    def call(self, req):
        self.calls += 1
        for attempt in range(self.attempts):
            if attempt:
                yield self.env.timeout(self.spacing)
            if (yield from self.downstream.call(req)):
                return True
        return False


def request(env, req, entry, stats):
    """One user request, from the edge's first try to its answer."""
    if (yield from entry.call(req)):
        stats.completed += 1
    else:
        stats.dropped += 1


def users(env, rate, entry, stats):
    """The source: `rate` requests a round through an accumulator."""
    acc = 0.0
    rid = 0
    while True:
        acc += rate
        whole = int(acc // 1)
        acc -= whole
        stats.arrivals[env.now] += whole
        for _ in range(whole):
            rid += 1
            env.process(request(env, Request(rid), entry, stats))
        yield env.timeout(1)


def brownouts(rounds, period):
    out = []
    i = 0
    while 160 + i * period <= rounds:
        out.append((101 + i * period, 160 + i * period))
        i += 1
    return out


def run(scale, rounds, period):
    windows = [(1, 100), (101, 160), (161, rounds)]
    stats = Stats(rounds, windows)
    env = simpy.Environment(initial_time=1)
    db = Dependency(env, stats, 12 * scale, 1 * scale, brownouts(rounds, max(period, 1)))
    worker = Service(env, "worker", db, attempts=3, spacing=4)
    api = Service(env, "api", worker, attempts=3, spacing=4)
    edge = Service(env, "edge", api, attempts=3, spacing=4)
    env.process(users(env, 4.0 * scale, edge, stats))
    env.run(until=rounds + 1)
    events = next(env._eid)  # events SimPy scheduled (its own counter)
    return stats, (edge, api, worker, db), events


def summary(stats, nodes, rounds):
    lines = []
    for name, (start, end), unique in zip(["before", "during", "after"], stats.windows, stats.unique):
        n = end + 1 - start
        calls = sum(stats.db_calls[start : end + 1])
        ok = sum(stats.db_ok[start : end + 1])
        edge = sum(stats.arrivals[start : end + 1])
        lines.append(
            f"{name:<6} {start}..{end}: edge/round {edge / n:.2f}  calls/round {calls / n:.2f}"
            f"  unique/round {unique / n:.2f}"
            f"  amplification {calls / unique if unique else 0.0:.2f}"
            f"  success {ok / calls if calls else 0.0:.4f}"
        )
    normal = sum(stats.db_calls[1:101]) / 100
    recovery = next((t - 160 for t in range(161, rounds + 1) if stats.db_calls[t] <= 1.1 * normal), -1)
    lines.append(f"recovery {recovery} rounds  peak {max(stats.db_calls)} calls/round")
    entered = sum(stats.arrivals)
    in_flight = entered - stats.completed - stats.dropped
    lines.append(
        f"requests {entered}  completed {stats.completed}  dropped {stats.dropped}  in flight {in_flight}"
    )
    lines.append("calls " + "  ".join(f"{n.name} {n.calls}" for n in nodes))
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=1, help="factor on demand and capacities")
    p.add_argument("--rounds", type=int, default=400, help="length of the run [rounds]")
    p.add_argument("--period", type=int, default=1000, help="a brownout every PERIOD rounds")
    p.add_argument("--reps", type=int, default=1, help="runs; the best wall time is printed")
    a = p.parse_args()
    best = float("inf")
    for _ in range(max(a.reps, 1)):
        started = time.perf_counter()
        stats, nodes, events = run(a.scale, a.rounds, a.period)
        best = min(best, time.perf_counter() - started)
    print(summary(stats, nodes, a.rounds))
    calls = sum(n.calls for n in nodes)
    print(
        f"time: simpy {best:.4f} s  events {events}  calls {calls}"
        f"  events/s {events / best:.0f}  calls/s {calls / best:.0f}"
        f"  python {sys.version.split()[0]}  simpy {simpy.__version__}"
    )


if __name__ == "__main__":
    main()
