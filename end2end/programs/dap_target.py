"""Debugged from an editor over DAP: checkout() calls add() in a loop."""


def add(total, price):
    subtotal = total + price
    return subtotal


def checkout(prices):
    total = 0
    for price in prices:
        total = add(total, price)
    return total


print("total", checkout([3, 4]))
