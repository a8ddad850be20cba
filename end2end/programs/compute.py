import breakroom


def compute(a, b):
    return a * b + 1


compute = breakroom.with_debug(compute)
print(compute(6, 7))
