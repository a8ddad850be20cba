"""The call list's test program (issue 45): reports one call of `tick`, so that /call-tree lists
it, waits for the file its first argument names, reports as many calls again as its second
argument says, and sleeps."""
import os
import sys
import time

import breakroom


def tick(n):
    return n


tick = breakroom.with_debug(tick)
tick(0)
print("listed", flush=True)
flag, count = sys.argv[1], int(sys.argv[2])
while not os.path.exists(flag):
    time.sleep(0.02)
for n in range(count):
    tick(n + 1)
    time.sleep(0.01)
print("done", flush=True)
time.sleep(60)
