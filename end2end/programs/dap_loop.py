"""Loops until the debugger sets `done` (DAP's pause stops it anywhere in the loop)."""
import time

done = False
rounds = 0
while not done:
    rounds += 1
    time.sleep(0.02)
print("rounds", rounds > 0)
