"""What both eval benchmarks measure: a browser-side caller's eval round trips, as percentiles."""

import time

from breakroom.protocol.transport import Transport


def time_evals(server_url, session_id, evals, warmup):
    """Times `evals` evals of `total * 7` (the paused call has total == 6) on one kept-alive
    connection; returns the sorted durations in seconds."""
    caller = Transport(server_url)
    path = f"/api/repl/{session_id}/eval"
    for _ in range(warmup):
        caller.post(path, {"expr": "total"})
    times = []
    for _ in range(evals):
        started = time.perf_counter()
        body = caller.post(path, {"expr": "total * 7"})
        times.append(time.perf_counter() - started)
        assert body["output"] == "42", body
    return sorted(times)


def report(label, times):
    pct = lambda p: times[min(len(times) - 1, int(len(times) * p))] * 1000  # noqa: E731
    print(
        f"{label}, n={len(times)}: p50={pct(0.5):.3f} ms  p90={pct(0.9):.3f} ms  "
        f"p99={pct(0.99):.3f} ms  max={times[-1] * 1000:.3f} ms"
    )


def timed(label, repeat, call, warmup=1):
    """Times `repeat` calls of `call` after `warmup` untimed ones, and prints them as `report`."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    report(label, sorted(times))
