"""What redaction costs the program (issue 50), on this Python.

    python3 client/bench/redaction.py [--rounds 3000] [--round-trip [--bin target/release/breakroom]]

Two measures, each with the default rules and with no rules at all (the same code with empty
rule lists, so the difference is the rules' own cost):

* a snapshot of a frame with 20 locals (ints, strings, a list, a dict, a small object, a
  `password` among them), built as a snapshot breakpoint builds it (`take.build`: the capture
  of the frame's values, on this thread);
* the variables panel of the same frame, as the client answers it (the rows, then the rules).

With `--round-trip`, the eval round trip (eval_round_trip.py's) is also timed against two servers
taking turns, 500 evals a turn: one with the default rules, one with `--no-default-redaction`
(the program then has no rules either), so the difference is what the rules cost an eval on both
sides.

Rounds alternate between the settings so drift on a busy machine falls on all alike. The rules
remember the names and short texts they have seen (a loop's snapshots and a panel opened again
show the same ones); a third setting forgets them before every round: the cost of values seen
for the first time. Goal: at most +10 % at p50. Prints figures; asserts nothing.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from breakroom import redaction  # noqa: E402
from breakroom.repl import variables  # noqa: E402
from breakroom.snapshots import take  # noqa: E402


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Point({self.x}, {self.y})"


class Plain:
    def __init__(self):
        self.name = "plain"
        self.values = [1, 2, 3]


def frame_with_20_locals(n):
    a, b, c, d, e = n, n + 1, n + 2, n + 3, n + 4
    s1, s2, s3 = "alpha", "beta" * 10, "gamma" * 100
    f1, f2 = 1.5, 2.5
    items = list(range(50))
    table = {"k%d" % i: i for i in range(20)}
    point = Point(n, n)
    plain = Plain()
    flag = True
    password = "hunter2-not-shown"
    pair = (1, "two")
    tags = {"x", "y"}
    raw = b"bytes"
    assert len(locals()) == 20, sorted(locals())  # n and the 19 above
    return sys._getframe()


def snapshot_once(policy, frame):
    started = time.perf_counter()
    take.build("bp-bench", policy, frame, {"id": 1, "name": "MainThread"}, ("bench.py", 1, "frame_with_20_locals"))
    return time.perf_counter() - started


def panel_once(frame):
    started = time.perf_counter()
    f_locals = frame.f_locals
    reply = variables.variables(f_locals, {})
    redaction.panel(reply, known=redaction.known_secrets(f_locals))
    return time.perf_counter() - started


def round_trip(turns=4, evals=500):
    """p50 of the eval round trip with the default rules and with none, servers taking turns."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from _timing import time_evals
    from conftest import FRAME, pause_program, start_server

    setups = {"rules": start_server(), "none": start_server("--no-default-redaction")}
    try:
        paused = {label: pause_program(server, FRAME, "process") for label, server in setups.items()}
        times = {label: [] for label in setups}
        for _ in range(turns):
            for label, server in setups.items():
                times[label] += time_evals(server.url, paused[label].session_id, evals, warmup=50)
        for p in paused.values():
            p.program.kill()
    finally:
        for server in setups.values():
            server.process.kill()
            server.process.wait()
    base, with_rules = statistics.median(times["none"]), statistics.median(times["rules"])
    print(
        f"eval round trip, {len(times['none'])} evals each: p50 {base * 1000:.3f} ms without rules, "
        f"{with_rules * 1000:.3f} ms with the default rules ({(with_rules - base) * 1000:+.3f} ms)"
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3000)
    parser.add_argument("--round-trip", action="store_true")
    parser.add_argument("--bin", default=None)
    args = parser.parse_args()
    if args.round_trip:
        if args.bin:
            import os

            os.environ["BREAKROOM_BIN"] = args.bin
        round_trip()
    frame = frame_with_20_locals(7)
    # Locals of this one frame only: its callers here are the benchmark itself.
    policy = take.Policy("bp-bench", {"capture": {"frames": 1}})
    on = redaction._build()
    off = redaction.Rules((), (), False)
    fresh = redaction._build()
    settings = [("none", off), ("rules", on), ("fresh", fresh)]
    results = {(what, label): [] for what in ("snapshot", "panel") for label, _ in settings}
    for i in range(args.rounds + 200):
        for label, rules in settings[i % 3 :] + settings[: i % 3]:
            redaction._rules = rules
            if rules is fresh:
                fresh._texts_seen.clear()
                fresh._names_seen.clear()
            snap = snapshot_once(policy, frame)
            if rules is fresh:
                fresh._texts_seen.clear()
                fresh._names_seen.clear()
            panel = panel_once(frame)
            if i >= 200:  # warm-up rounds are not counted
                results[("snapshot", label)].append(snap)
                results[("panel", label)].append(panel)
    redaction._rules = on
    print(f"Python {sys.version.split()[0]}, {args.rounds} rounds each")
    for what in ("snapshot", "panel"):
        base = statistics.median(results[(what, "none")])
        with_rules = statistics.median(results[(what, "rules")])
        first = statistics.median(results[(what, "fresh")])
        print(
            f"{what:8s} of 20 locals: p50 {base * 1e6:7.1f} us without rules; with the default rules "
            f"{with_rules * 1e6:7.1f} us ({100 * (with_rules - base) / base:+.1f} %), "
            f"values seen for the first time {first * 1e6:7.1f} us ({100 * (first - base) / base:+.1f} %)"
        )


if __name__ == "__main__":
    main()
