"""The protocol's closed sets of values, as the server spells them on the wire.

Each group mirrors one of the server's Rust enums; `debugger/tests/client_protocol_constants.rs`
reads this file and fails when a value here is not what the enum serializes to. Keep one
`NAME = "value"` assignment per line: that test parses the lines, not the Python.
"""

# What a paused call is told to do: the `action` of call/start and of a ready poll (calls::Action).
ACTION_CONTINUE = "continue"
ACTION_POLL = "poll"
ACTION_STEP = "step"
ACTION_SKIP = "skip"
ACTION_RAISE = "raise"
ACTION_MODIFY = "modify"
ACTION_REPLACE = "replace"

# A poll answer's `status` (PollReply).
POLL_WAITING = "waiting"
POLL_READY = "ready"
POLL_UNKNOWN = "unknown"
POLL_STOPPING = "stopping"

# How a step goes on: the `step` of a step action (steps::StepKind).
STEP_OVER = "over"
STEP_INTO = "into"
STEP_OUT = "out"
STEP_TO_LINE = "to_line"

# How a step ended where it stopped: `stop.how` (read by steps::StopInfo's label; no enum).
STEPPED_LINE = "line"
STEPPED_RETURN = "return"
STEPPED_EXCEPTION = "exception"

# Why the program stopped: `stop.kind` of call/start (steps::StopKind).
STOP_CALL = "call"
STOP_LINE = "line"
STOP_SET_TRACE = "set_trace"
STOP_STEP = "step"
STOP_EXCEPTION = "exception"
STOP_INTERRUPT = "interrupt"
STOP_ENTRY = "entry"
STOP_TASK = "task"

# How a call ended: the `status` of call/complete (kinds::CallStatus).
CALL_SUCCESS = "success"
CALL_EXCEPTION = "exception"

# The `pause` of call/start for set_trace and post-mortem pauses: `always` pauses, `exception`
# pauses after a raise (model::PauseReason names the latter; `always` is read by call/start).
PAUSE_ALWAYS = "always"
PAUSE_EXCEPTION = "exception"

# Which arrival a breakpoint pauses (breakpoints::record::BreakpointKind).
BREAKPOINT_FUNCTION = "function"
BREAKPOINT_LINE = "line"
BREAKPOINT_ERROR = "error"

# What a breakpoint's hit does (snapshots::policy::BreakpointAction).
BREAKPOINT_PAUSE = "pause"
BREAKPOINT_LOG = "log"
BREAKPOINT_SNAPSHOT = "snapshot"

# A snapshot breakpoint that no longer arms: its `state` (snapshots::policy::BreakpointState).
BREAKPOINT_COMPLETED = "completed"
BREAKPOINT_EXPIRED = "expired"

# The `event` of a report to /api/breakpoint-hits (model::EventKind, and `hit_count` for counts).
EVENT_BREAKPOINT_HIT = "breakpoint_hit"
EVENT_LOG = "log"
EVENT_HIT_COUNT = "hit_count"

# Requests the REPL page makes besides evals: an eval request's `kind` (eval::RequestKind).
REQUEST_COMPLETE = "complete"
REQUEST_VARIABLES = "variables"
REQUEST_EXPAND = "expand"
REQUEST_TABLE = "table"
REQUEST_VIEW = "view"
# The debug page's watch expressions, evaluated read-only as a snapshot's are (issue 45).
REQUEST_WATCH = "watch"

# An order for one asyncio task, from the breakpoint channel's `task_orders` (interrupts::TaskAction),
# and how it went, in the answer to /api/task-orders (interrupts::TaskOutcome). Issue 51.
TASK_CANCEL = "cancel"
TASK_CANCELLED = "cancelled"
TASK_CANCELLING = "cancelling"
TASK_NOT_FOUND = "not_found"
TASK_FINISHED = "finished"
TASK_PAUSED = "paused"
TASK_PAUSE = "pause"
TASK_SUSPENDED = "suspended"
TASK_LOOP_BLOCKED = "loop_blocked"
TASK_NOT_PAUSABLE = "not_pausable"
# The name of the thread a task suspended alone waits on, before the task's name: editors list
# each as a thread (DAP), and the debug page shows the task tree beside such a pause.
TASK_THREAD_PREFIX = "asyncio task "

# The `error` of the server's answers that the client acts on (error::Error::code).
ERROR_CID_NOT_FOUND = "cid_not_found"
ERROR_EVAL_NOT_FOUND = "eval_not_found"
# An eval refused, not run (issue 51): it awaits, and the pause stops its loop's thread. Sent as
# a repl-result's `refused`; the server answers the eval 409 with it.
ERROR_LOOP_BLOCKED = "loop_blocked"
# The router's own answers for a route this server does not have (an older server).
ERROR_NOT_FOUND = "not_found"
ERROR_METHOD_NOT_ALLOWED = "method_not_allowed"

# What a snapshot breakpoint's arrivals were counted as when not taken (the hit_count report).
COUNT_SKIPPED_QUOTA = "skipped_quota"
COUNT_SKIPPED_RATE = "skipped_rate"
COUNT_DROPPED = "dropped"

# An eval's rich outputs, in nbformat's shape: their `output_type` (outputs::OutputType).
OUTPUT_EXECUTE_RESULT = "execute_result"
OUTPUT_DISPLAY_DATA = "display_data"
# The MIME types the client produces and the page knows (outputs::MIME_*).
MIME_PLAIN = "text/plain"
MIME_HTML = "text/html"
MIME_MARKDOWN = "text/markdown"
MIME_LATEX = "text/latex"
MIME_PNG = "image/png"
MIME_JPEG = "image/jpeg"
MIME_SVG = "image/svg+xml"
MIME_JSON = "application/json"
MIME_TABLE = "application/vnd.breakroom.table+json"
# Their bounds in bytes (outputs::MAX_*): one image, any other form, one answer's outputs.
MAX_IMAGE_BYTES = 524288
MAX_HTML_BYTES = 262144
MAX_ANSWER_BYTES = 1048576
