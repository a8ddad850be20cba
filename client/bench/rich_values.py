"""What rich values cost (issue 52): end to end through the real server and a real paused
program, timed by a caller on this package's kept-alive transport.

- the eval of a matplotlib figure (its PNG made by savefig, base64, checked, stored, answered);
- the first page of a 10,000,000-item list in the variables panel (`/variables/expand`);
- the table route's page 44 of a 5,000-row DataFrame, and the same page sorted by a column;
- for scale: the eval of `big` (the 10,000,000-item list's bounded repr) and a plain `n * 7`.

    python3 client/bench/rich_values.py [--repeat 30] [--bin target/release/breakroom]

Prints figures; asserts nothing (goals: the figure at most 300 ms, the list's first page at most
50 ms).
"""

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from _timing import timed  # noqa: E402  (one warm-up call: the first figure imports matplotlib's backend)
from breakroom.protocol.transport import Transport  # noqa: E402
from conftest import pause_program, start_server  # noqa: E402

PROGRAM = """
    import breakroom
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    def inspect():
        n = 6
        fig, ax = plt.subplots()
        ax.plot(range(100), [i * i for i in range(100)])
        big = list(range(10_000_000))
        df = pd.DataFrame({"n": range(5000), "square": [i * i for i in range(5000)]})
        breakroom.set_trace()

    inspect()
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--bin", default=None)
    args = parser.parse_args()
    if args.bin:
        os.environ["BREAKROOM_BIN"] = args.bin
    server = start_server("--eval-timeout", "60")
    try:
        paused = pause_program(server, PROGRAM, "inspect")
        caller = Transport(server.url)
        session = paused.session_id
        evaluate = lambda expr: caller.post(f"/api/repl/{session}/eval", {"expr": expr})  # noqa: E731

        def figure():
            assert evaluate("fig")["outputs"][0]["data"]["image/png"]

        def first_page():
            reply = caller.post(f"/api/repl/{session}/variables/expand", {"path": [["var", "big"]], "offset": 0})
            assert reply["count"] == 10_000_000 and len(reply["children"]) == 100, reply.keys()

        url = evaluate("df")["outputs"][0]["metadata"]["breakroom"]["table"]["url"]
        timed("eval of a matplotlib figure (PNG)", args.repeat, figure)
        timed("variables panel: first page of a 10,000,000-item list", args.repeat, first_page)
        timed("table route: page 44 of a 5,000-row DataFrame", args.repeat, lambda: caller.get(f"{url}?offset=4300"))
        timed("table route: the same page sorted by a column", args.repeat,
              lambda: caller.get(f"{url}?offset=4300&sort=square&descending=true"))
        timed("eval of the 10,000,000-item list (bounded repr)", args.repeat, lambda: evaluate("big"))
        timed("eval of n * 7 (for scale)", args.repeat, lambda: evaluate("n * 7"))
        paused.program.kill()
    finally:
        server.process.terminate()
        server.process.wait(5)


if __name__ == "__main__":
    main()
