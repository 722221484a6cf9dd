"""The continuous-time benchmark as a SimPy model: squall's comparison point.

The model is `bench/continuous.squall` (times in ms):

* users send requests into `edge`, Poisson at 1000/s, for `--minutes`;
* `edge -> mid -> db`; each node is a worker pool with a FIFO queue of 200
  (a call that finds the pool busy and the queue full is refused) and a
  lognormal service time given by its p50 and p99;
* a node with a downstream draws its service time first, then sends its
  first try downstream and holds its worker until it has an answer: while
  a try is out and while it waits before a retry;
* `edge` gives each try at `mid` 150 ms and makes up to 2 tries, `mid` gives
  each try at `db` 60 ms and makes up to 3; a failed or timed-out try is
  retried after a full-jitter wait, round(u * min(cap, base * 2^(n-1))) ms;
* a try that times out is left behind: the callee keeps working (and
  retrying) and its answer goes nowhere.

It prints the summary squall's report prints for the file: requests, calls
per layer, the completed share, timeouts per calling layer and the end-to-end
p50/p99 of requests that ended. The two use different random streams, so the
numbers agree in distribution, not digit for digit.

Written as SimPy is usually written: every call is a process, a worker pool
is a `simpy.Resource`, a try's timeout is `yield child | env.timeout(t)`.
"""

import argparse
import math
import random
import sys
import time

import simpy

Z99 = 2.3263478740408408  # the standard normal's 0.99 quantile


class Node:
    __slots__ = ("name", "pool", "queue", "mu", "sigma", "down", "timeout",
                 "attempts", "base", "cap", "calls", "timeouts")

    def __init__(self, env, name, p50, p99, workers, queue, down=None,
                 timeout=None, attempts=1, base=0, cap=0):
        self.name = name
        self.pool = simpy.Resource(env, capacity=workers)
        self.queue = queue
        self.mu = math.log(p50)
        self.sigma = math.log(p99 / p50) / Z99
        self.down = down
        self.timeout = timeout
        self.attempts = attempts
        self.base = base
        self.cap = cap
        self.calls = 0
        self.timeouts = 0


def call(env, node, rng):
    """One call at `node`; its value is True for success."""
    node.calls += 1
    pool = node.pool
    if pool.count >= pool.capacity and len(pool.queue) >= node.queue:
        return False  # overflow: refused
    with pool.request() as worker:
        yield worker
        yield env.timeout(rng.lognormvariate(node.mu, node.sigma))
        down = node.down
        if down is None:
            return True
        n = 0
        while True:
            n += 1
            child = env.process(call(env, down, rng))
            timer = env.timeout(node.timeout)
            done = yield child | timer
            if child in done:
                if done[child]:
                    return True
            else:
                node.timeouts += 1
            if n >= node.attempts:
                return False
            bound = min(node.cap, node.base * 2.0 ** (n - 1))
            wait = round(rng.random() * bound)
            if wait > 0:
                yield env.timeout(wait)


def request(env, edge, rng, ended, stats):
    start = env.now
    ok = yield env.process(call(env, edge, rng))
    ended.append(env.now - start)
    if ok:
        stats[0] += 1


def users(env, edge, rate, horizon, rng, ended, stats):
    while True:
        yield env.timeout(rng.expovariate(rate))
        if env.now > horizon:
            return
        stats[1] += 1
        env.process(request(env, edge, rng, ended, stats))


def quantile(xs, q):
    xs.sort()
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=60.0)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    env = simpy.Environment()
    db = Node(env, "db", 5.0, 80.0, 40, 200)
    mid = Node(env, "mid", 2.0, 10.0, 100, 200, down=db, timeout=60.0,
               attempts=3, base=10, cap=100)
    edge = Node(env, "edge", 1.0, 5.0, 200, 200, down=mid, timeout=150.0,
                attempts=2, base=20, cap=200)
    horizon = a.minutes * 60_000.0
    ended, stats = [], [0, 0]
    t0 = time.perf_counter()
    env.process(users(env, edge, 1.0, horizon, rng, ended, stats))
    env.run(until=horizon)
    wall = time.perf_counter() - t0
    completed, arrivals = stats
    head = ["window", "requests", "calls edge", "calls mid", "calls db",
            "completed share", "timeouts edge", "timeouts mid",
            "e2e p50 [ms]", "e2e p99 [ms]"]
    row = ["all", str(arrivals), str(edge.calls), str(mid.calls),
           str(db.calls), f"{completed / arrivals:.4f}", str(edge.timeouts),
           str(mid.timeouts), f"{quantile(ended, 0.50):.2f}",
           f"{quantile(ended, 0.99):.1f}"]
    print("  ".join(head))
    print("  ".join(row))
    calls = edge.calls + mid.calls + db.calls
    print(f"time: simpy {wall:.2f} s  calls {calls}  calls/s {calls / wall:.0f}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
