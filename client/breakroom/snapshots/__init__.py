"""Snapshot breakpoints and logpoints (issue 34): read-only evaluation, bounded capture on a
worker thread, and sending in the background."""
