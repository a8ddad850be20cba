"""A call paused at the server, as the waiting loop of `client` serves it: what its REPL
sessions evaluate against (the frame's target, each session's names) and which evals it has
answered (an eval handed out again after a dropped connection is answered, never run twice)."""


class Pause:
    """A call paused at the server, with what its REPL sessions evaluate against."""

    def __init__(self, pause_id, target, inherited=None, frames=None, namespaces=None):
        self.pause_id = pause_id
        self.target = target
        self._frames = frames  # () -> the targets of the stack's frames, innermost first
        self._frame_targets = None
        # A step's stop: its sessions moved here from the pause it started at, names and all.
        self.namespaces = dict(namespaces or {})
        # A line woken from a checkpoint: the names its REPL sessions had when it was taken.
        self.inherited = inherited or {}
        # Answers by eval id: an eval the server hands out again (its poll's reply was lost on
        # the way) is answered again, never run twice. Bounded: only the newest are kept.
        self.answers = {}
        # Answers whose post failed (the server was away): sent with the next poll.
        self.unsent = []
        # The live objects behind the tables evals showed, by handle: their pages are read from
        # them while the call stays paused, and they go with the pause.
        self.tables = {}

    def answered(self, body):
        eval_id = body.get("eval_id")
        if isinstance(eval_id, str):
            self.answers[eval_id] = body
            if len(self.answers) > 64:
                self.answers.pop(next(iter(self.answers)))

    def namespace(self, session_id):
        if session_id not in self.namespaces:
            self.namespaces[session_id] = dict(self.inherited)
        return self.namespaces[session_id]

    def target_at(self, frame):
        """What an eval with `frame: N` runs against (pdb's up/down): the pause's own target
        without one. Raises ValueError for a frame the stack does not have."""
        if frame is None:
            return self.target
        if type(frame) is not int or frame < 0:
            raise ValueError(f"frame must be a frame index (0 = innermost), not {frame!r}")
        if self._frame_targets is None:
            self._frame_targets = self._frames() if self._frames is not None else [self.target]
        if frame >= len(self._frame_targets):
            raise ValueError(f"no frame {frame}: the stack has {len(self._frame_targets)}")
        return self._frame_targets[frame]

    def merged_namespaces(self):
        merged = dict(self.inherited)
        for namespace in self.namespaces.values():
            merged.update(namespace)
        return merged
