"""Pauses with breakpoint() (from the web page's point of view), then raises an uncaught error."""
import sys

import breakroom


def work(n):
    breakroom.set_trace()
    return n * 2


print("doubled", work(21))
if "--raise" in sys.argv:
    {}["missing"]
