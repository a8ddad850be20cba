"""Debugged from an editor over DAP: a loop whose breakpoints have options."""


def visit(n):
    seen = n * 10
    return seen


for n in range(5):
    visit(n)
print("visited")
