"""The snapshot-of-data test's program (issue 52): a loop that must never stop, holding a
DataFrame (one column named like a secret, one cell of markup) and an array at the line marked
LOOP, and printing its counter as it goes."""
import time

import numpy as np
import pandas as pd

import breakroom


def main():
    orders = pd.DataFrame({
        "order": range(500),
        "api_key": ["sk-test-abcdef0123456789"] * 500,
        "note": ["<img src=x onerror=alert(1)>"] * 500,
    })
    signal = np.sin(np.linspace(0, 12, 5000))
    n = 0
    print("ready", flush=True)
    while True:
        n += 1  # LOOP
        if n % 10 == 0:
            print("n", n, flush=True)
        time.sleep(0.02)


breakroom.configure(labels={"service": "e2e-snap-data"}).ensure_connected()
main()
