"""Time travel (issue 20): checkpoints, forked copies of the process at its pauses."""
