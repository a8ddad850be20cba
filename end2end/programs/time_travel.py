"""A program whose global list grows on each paused call, with checkpoints on (issue 20)."""
import breakroom

breakroom.checkpoints(True)
history = []


@breakroom.breakpoint
def grow(i):
    history.append(i)
    return len(history)


for i in range(3):
    grow(i)
print("done", history)
