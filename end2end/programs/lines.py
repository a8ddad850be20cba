"""A program for the line-breakpoint page test: it pauses in main (set_trace), then runs
step() three times; step's lines are within the paused frame's source context."""
import breakroom


def step(i):
    doubled = i * 2
    return doubled


def main():
    breakroom.set_trace()
    return [step(i) for i in range(3)]


print("steps", main())
