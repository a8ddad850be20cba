"""Nested calls for the page tests: checkout pauses, then each price call, then a set_trace
in checkout's own frame."""
import breakroom


@breakroom.breakpoint
def price(item, qty):
    return item["unit"] * qty


@breakroom.breakpoint
def checkout(cart):
    total = 0
    for item, qty in cart:
        total += price(item, qty)
    breakroom.set_trace()
    return total


print("total", checkout([({"name": "tea", "unit": 3}, 2), ({"name": "cake", "unit": 5}, 1)]))
