"""What the debug page's watch expressions cost (issue 45): `POST /api/repl/{id}/watch` end to end
through the real server and a real paused program, timed by a caller on this package's
kept-alive transport, as the page's server function calls the same method at every stop.

- one watch (`total * 7`), beside the eval of the same expression for scale;
- five watches of a few kinds (arithmetic, an attribute, a comprehension over a list of dicts,
  a dict read, a slice);
- twenty (the most one request takes), the five repeated.

    python3 client/bench/watch.py [--repeat 200] [--bin target/release/breakroom]

Prints figures; asserts nothing but that each answer has a value per expression.
"""

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from _timing import timed  # noqa: E402
from breakroom.protocol.transport import Transport  # noqa: E402
from conftest import pause_program, start_server  # noqa: E402

PROGRAM = """
    import breakroom

    class Order:
        def __init__(self):
            self.id = 42
            self.lines = [{"sku": f"s{i}", "qty": i, "price": i * 1.5} for i in range(50)]

    def inspect():
        total = 6
        order = Order()
        settings = {"mode": "fast", "retries": 3}
        breakroom.set_trace()

    inspect()
"""

FIVE = [
    "total * 7",
    "order.id",
    "[line['qty'] for line in order.lines if line['qty'] > 45]",
    "settings.get('mode')",
    "order.lines[:2]",
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--bin", default=None)
    args = parser.parse_args()
    if args.bin:
        os.environ["BREAKROOM_BIN"] = args.bin
    server = start_server()
    try:
        paused = pause_program(server, PROGRAM, "inspect")
        caller = Transport(server.url)
        session = paused.session_id

        def watch(expressions):
            def call():
                reply = caller.post(f"/api/repl/{session}/watch", {"expressions": expressions})
                assert all("value" in w for w in reply["expressions"]), reply
            return call

        timed("eval of total * 7 (for scale)", args.repeat,
              lambda: caller.post(f"/api/repl/{session}/eval", {"expr": "total * 7"}), warmup=10)
        timed("watch: 1 expression", args.repeat, watch(FIVE[:1]), warmup=10)
        timed("watch: 5 expressions", args.repeat, watch(FIVE), warmup=10)
        timed("watch: 20 expressions", args.repeat, watch(FIVE * 4), warmup=10)
        paused.program.kill()
    finally:
        server.process.terminate()
        server.process.wait(5)


if __name__ == "__main__":
    main()
