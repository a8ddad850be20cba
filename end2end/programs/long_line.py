"""Paused before a long line: the debug page shows all of it (issue 45), scrolling sideways."""
import breakroom


def describe(order_id, customer_name, shipping_address, billing_address, line_items, discount_code, currency, tax_rate):
    return f"{order_id} {customer_name} {len(line_items)} items {currency} {tax_rate}"


def ship(order_id):
    customer_name = "Ada Lovelace"
    line_items = ["tea", "scones", "jam"]
    breakroom.set_trace()
    summary = describe(order_id, customer_name, "12 Analytical Row, London", "12 Analytical Row, London", line_items, "SPRING", "GBP", 0.2)  # end
    return summary


print(ship(1843))
