import breakroom


@breakroom.breakpoint
def settle(invoice, amount):
    return amount * 2


print("settled", settle("inv-7", 21))
