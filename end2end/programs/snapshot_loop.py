"""The snapshot test's program (issue 34): a loop that must never stop. It connects (so the
server's breakpoints reach it), then runs the line marked LOOP forever with a few locals, one of
them markup that the pages must show as text, and prints its counter as it goes."""
import time

import breakroom


def main():
    page = "<script>alert(1)</script>"
    order = {"items": [1, 2, 3], "total": 12, "note": page}
    n = 0
    print("ready", flush=True)
    while True:
        n += 1  # LOOP
        if n % 10 == 0:
            print("n", n, flush=True)
        time.sleep(0.02)


breakroom.configure(labels={"service": "e2e-snap"}).ensure_connected()
main()
