// The protocol's closed sets of values, as the server spells them on the wire. Each group
// mirrors one of the server's Rust enums; debugger/tests/client_protocol_constants.rs reads this
// file and fails when a value here is not what the enum serializes to. Keep one
// `export const NAME = 'value';` per line: that test parses the lines.

// What a paused call is told to do: the `action` of call/start and of a ready poll (calls::Action).
export const ACTION_CONTINUE = 'continue';
export const ACTION_POLL = 'poll';
export const ACTION_SKIP = 'skip';
export const ACTION_RAISE = 'raise';
export const ACTION_MODIFY = 'modify';
export const ACTION_REPLACE = 'replace';

// A poll answer's `status` (PollReply).
export const POLL_READY = 'ready';
export const POLL_UNKNOWN = 'unknown';
export const POLL_STOPPING = 'stopping';

// How a call ended: the `status` of call/complete (kinds::CallStatus).
export const CALL_SUCCESS = 'success';
export const CALL_EXCEPTION = 'exception';

// The `pause` of call/start for a pause in the caller's own scope (read by call/start).
export const PAUSE_ALWAYS = 'always';

// What an eval request asks: its `kind` (eval::RequestKind).
export const REQUEST_EVAL = 'eval';
export const REQUEST_COMPLETE = 'complete';
export const REQUEST_VARIABLES = 'variables';
export const REQUEST_WATCH = 'watch';

// How values travel (calls::SerializationFormat).
export const FORMAT_JSON = 'json';
