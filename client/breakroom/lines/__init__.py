"""Line events: line breakpoints armed into running code, sys.monitoring, rewritten code,
running frames' tracing, stepping and interrupting a running thread."""
