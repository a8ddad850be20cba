"""The REPL of a paused program: evaluating input, completion, the variables panel, and reading
objects without running their code."""
