"""A program started without Breakroom (no client on its path): the attach test's target."""
import sys
import time


def tick(n):
    return n + 1


print("ready", sys.argv[1:], flush=True)
n = 0
while True:
    n = tick(n)
    time.sleep(0.05)
