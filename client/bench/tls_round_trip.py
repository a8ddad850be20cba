"""What TLS costs an eval (issue 49): the eval round trip of `eval_round_trip.py` (a caller on
this package's kept-alive transport, a real paused Python program answering through the client),
against a plain-HTTP server and against one started with --tls-cert and --tls-key, where both the
caller's and the program's connections are TLS (verified against a throwaway CA made with the
openssl command). The two servers take turns, three rounds each, so the machine's drift falls on
both.

    python3 client/bench/tls_round_trip.py [--evals 2000] [--rounds 3] [--bin target/release/breakroom]

Prints figures; asserts nothing (goal: TLS adds at most 0.2 ms to the p50).
"""

import argparse
import os
import ssl
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

import tls_ca  # noqa: E402
from _timing import report, time_evals  # noqa: E402
from conftest import FRAME, pause_program, start_server  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--evals", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bin", default=None)
    args = parser.parse_args()
    if args.bin:
        os.environ["BREAKROOM_BIN"] = args.bin
    made = tls_ca.make()
    # The caller's transport and the paused program both read it.
    os.environ["BREAKROOM_CA_FILE"] = str(made["ca"])
    plain = start_server()
    tls = start_server("--tls-cert", str(made["cert"]), "--tls-key", str(made["key"]),
                       context=ssl.create_default_context(cafile=str(made["ca"])))
    try:
        over_plain = pause_program(plain, FRAME, "process")
        over_tls = pause_program(tls, FRAME, "process")
        together = {"plain HTTP": [], "TLS": []}
        for round_number in range(1, args.rounds + 1):
            for label, server, paused in (("plain HTTP", plain, over_plain), ("TLS", tls, over_tls)):
                times = time_evals(server.url, paused.session_id, args.evals, warmup=100)
                report(f"round {round_number}: eval round trip, {label:<10}", times)
                together[label].extend(times)
        p50 = {}
        for label, times in together.items():
            times.sort()
            report(f"all rounds: eval round trip, {label:<10}", times)
            p50[label] = times[len(times) // 2] * 1000
        print(f"TLS adds {p50['TLS'] - p50['plain HTTP']:+.3f} ms to the p50")
        over_plain.program.kill()
        over_tls.program.kill()
    finally:
        for server in (plain, tls):
            server.process.kill()
            server.process.wait()
        tls_ca.remove(made)


if __name__ == "__main__":
    main()
