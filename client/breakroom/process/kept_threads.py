"""Daemon threads kept for the next job: starting a thread costs a context-switch round trip
(`Thread.start` waits until it runs), several times the cost of a short job, and a kept thread
also keeps its own kept-alive connection to the server. A kept thread waits on a queue; one
busy with a job that never ends is simply not idle, and the next job gets another thread."""

import queue
import threading


class KeptThreads:
    def __init__(self, name, max_idle):
        self._name = name
        self._max_idle = max_idle
        self._lock = threading.Lock()
        self._idle = []

    def submit(self, job):
        """Runs `job()` on an idle kept thread, or on a new one."""
        with self._lock:
            jobs = self._idle.pop() if self._idle else None
        if jobs is None:
            jobs = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(jobs,), name=self._name, daemon=True).start()
        jobs.put(job)

    def _serve(self, jobs):
        while True:
            jobs.get()()
            with self._lock:
                if len(self._idle) >= self._max_idle:
                    return
                self._idle.append(jobs)
