"""Paused with breakpoint(): the debug page steps through checkout() and add()."""
import os

import breakroom

breakroom.checkpoints(os.environ.get("STEP_CHECKPOINTS") == "1")


def add(total, price):
    subtotal = total + price
    return subtotal


def checkout(prices):
    total = 0
    breakroom.set_trace()
    for price in prices:
        total = add(total, price)
    return total


print("total", checkout([3, 4]))
