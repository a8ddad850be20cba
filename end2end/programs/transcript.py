"""Pauses one call, `transcript(41)`, for the REPL transcript tests and benchmark."""
import breakroom


def transcript(n):
    return n + 1


transcript = breakroom.with_debug(transcript)
print(transcript(41))
