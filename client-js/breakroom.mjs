// Breakroom's JavaScript debug client: an ES module for Node >= 20 and browsers, no dependencies.
// Served by the server at GET /api/debug-client.js and printed by `breakroom js-client`.
//
//   import breakroom, { withDebug, debugCall } from 'http://127.0.0.1:5174/api/debug-client.js';
//   const add = withDebug(function add(a, b) { return a + b; });
//   await add(2, 3);                        // pauses before the call; the REPL sees a and b
//   await debugCall('total', sum, 1, 2);    // one call of fn under a name
//   ({ x } = await breakroom.pause({ x }));  // pauses here with these locals
//
// The server is BREAKROOM_URL (Node), else the origin this module was loaded from (browser),
// else the port file the server writes, else http://127.0.0.1:5174; `configure({serverUrl,
// token})` overrides. If it cannot be reached, one line is printed and calls run without
// pausing. Wire format: docs/JS_PROTOCOL.md.

const IS_NODE = typeof process !== 'undefined' && !!(process.versions && process.versions.node);
const EVAL_EXPR = '__breakroom_expr__';
const DEFAULT_URL = 'http://127.0.0.1:5174';

const state = {
  serverUrl: null,
  token: null,
  enabled: true,
  offline: false,
  warned: false,
  clientRef: 0,
  replacements: new Map(),
};

/** Options: `serverUrl`, `token`, `enabled` (false: calls run without asking the server). */
export function configure(options = {}) {
  if (options.serverUrl) state.serverUrl = String(options.serverUrl).replace(/\/+$/, '');
  if (options.token !== undefined) state.token = options.token;
  if (options.enabled !== undefined) state.enabled = !!options.enabled;
  state.offline = false;
}

/** A function the server may swap in for `name` (a breakpoint's replacement). */
export function registerReplacement(name, fn) {
  state.replacements.set(name, fn);
}

async function serverUrl() {
  if (state.serverUrl) return state.serverUrl;
  const env = IS_NODE ? process.env : {};
  let url = env.BREAKROOM_URL || null;
  if (!url && !IS_NODE) {
    try {
      const here = new URL(import.meta.url);
      if (here.protocol === 'http:' || here.protocol === 'https:') url = here.origin;
    } catch (_) {
      // not loaded from a URL
    }
  }
  if (!url && IS_NODE) url = await portFileUrl(env);
  state.serverUrl = (url || DEFAULT_URL).replace(/\/+$/, '');
  if (state.token === null && env.BREAKROOM_TOKEN) state.token = env.BREAKROOM_TOKEN;
  return state.serverUrl;
}

// Where the server wrote its port, as the Python client looks for it.
async function portFileUrl(env) {
  try {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const os = await import('node:os');
    const file =
      env.CIDELDILL_PORT_FILE || path.join(env.CIDELDILL_HOME || path.join(os.homedir(), '.cideldill'), 'port');
    const port = parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    return port > 0 && port < 65536 ? `http://127.0.0.1:${port}` : null;
  } catch (_) {
    return null;
  }
}

class Offline extends Error {}

async function request(method, path, body) {
  const url = (await serverUrl()) + path;
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  let response;
  try {
    response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new Offline(err && err.cause && err.cause.code ? err.cause.code : String(err && err.message));
  }
  const text = await response.text();
  let data = null;
  try {
    data = JSON.parse(text);
  } catch (_) {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.message ? data.message : text.slice(0, 200);
    throw new Error(`breakroom: ${method} ${path} answered ${response.status}: ${message}`);
  }
  return data;
}

function warnOffline(detail) {
  state.offline = true;
  if (state.warned) return;
  state.warned = true;
  console.error(
    `breakroom: cannot reach the Breakroom server at ${state.serverUrl} (${detail}); ` +
      'calls run without pausing. Start it with `breakroom` or set BREAKROOM_URL.'
  );
}

// ---- values -------------------------------------------------------------------------------

/** A short display text, like a REPL shows: strings quoted, objects as JSON-ish. */
export function repr(value, depth = 0) {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  const type = typeof value;
  if (type === 'string') return JSON.stringify(value);
  if (type === 'number' || type === 'boolean') return Object.is(value, -0) ? '-0' : String(value);
  if (type === 'bigint') return `${value}n`;
  if (type === 'symbol') return value.toString();
  if (type === 'function') return `[Function: ${value.name || 'anonymous'}]`;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof RegExp) return String(value);
  if (depth > 2) return Array.isArray(value) ? '[Array]' : '[Object]';
  try {
    if (Array.isArray(value)) {
      const items = value.slice(0, 100).map((v) => repr(v, depth + 1));
      if (value.length > 100) items.push(`… ${value.length - 100} more`);
      return `[${items.join(', ')}]`;
    }
    if (value instanceof Map) {
      return `Map(${value.size}) {${[...value].slice(0, 50).map(([k, v]) => `${repr(k, depth + 1)} => ${repr(v, depth + 1)}`).join(', ')}}`;
    }
    if (value instanceof Set) {
      return `Set(${value.size}) {${[...value].slice(0, 50).map((v) => repr(v, depth + 1)).join(', ')}}`;
    }
    if (typeof value.then === 'function') return 'Promise { <pending> }';
    const name = value.constructor && value.constructor.name !== 'Object' ? `${value.constructor.name} ` : '';
    const keys = Object.keys(value).slice(0, 50);
    const body = keys.map((k) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${repr(value[k], depth + 1)}`);
    return `${name}{${body.join(', ')}}`;
  } catch (err) {
    return `<unprintable: ${err && err.message}>`;
  }
}

// JSON text for the CID store; values JSON cannot carry become their display text.
function jsonText(value) {
  const seen = new WeakSet();
  try {
    const text = JSON.stringify(value, (_key, v) => {
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') return repr(v);
      if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
      if (v && typeof v === 'object') {
        if (seen.has(v)) return '[Circular]';
        seen.add(v);
        if (v instanceof Map || v instanceof Set || v instanceof Error) return repr(v);
      }
      return v;
    });
    return text === undefined ? 'null' : text;
  } catch (_) {
    return JSON.stringify(repr(value));
  }
}

async function sha512Hex(text) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (!subtle) return null; // a page on a plain-http origin other than localhost
  const digest = await subtle.digest('SHA-512', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

// A serialized item: the value as JSON text under its CID, with its display text.
async function item(value) {
  const data = jsonText(value);
  const cid = await sha512Hex(data);
  state.clientRef += 1;
  const out = { client_ref: state.clientRef, serialization_format: 'json', repr: repr(value) };
  if (cid) Object.assign(out, { cid, data });
  return out;
}

function decodeItem(entry) {
  if (!entry || typeof entry !== 'object') return entry;
  if ('data' in entry && (!entry.serialization_format || entry.serialization_format === 'json')) {
    return JSON.parse(entry.data);
  }
  throw new Error(`breakroom: cannot read a ${entry.serialization_format} value in JavaScript`);
}

// ---- where the program is -----------------------------------------------------------------

const identity = { pid: 0, startTime: null, hostname: undefined, argv: undefined, processId: undefined };
let identityReady = null;

function loadIdentity() {
  if (!identityReady) {
    identityReady = (async () => {
      if (IS_NODE) {
        identity.pid = process.pid;
        identity.startTime = Math.round((Date.now() / 1000 - process.uptime()) * 1e6) / 1e6;
        identity.argv = process.argv.slice(1);
        identity.processId = process.env.BREAKROOM_PROCESS_ID || undefined;
        try {
          identity.hostname = (await import('node:os')).hostname();
        } catch (_) {
          identity.hostname = undefined;
        }
      } else {
        // A page has no pid: 0, and its load time tells pages apart.
        const origin = globalThis.performance && performance.timeOrigin ? performance.timeOrigin : Date.now();
        identity.startTime = Math.round(origin * 1000) / 1e6;
      }
    })();
  }
  return identityReady;
}

// V8's stack lines: "    at name (file:line:col)" or "    at file:line:col".
function stackFrames(skip) {
  const lines = String(new Error().stack || '').split('\n').slice(1 + skip);
  const frames = [];
  for (const line of lines) {
    const m = line.match(/^\s*at (?:async )?(?:(.*?) \()?(.*?):(\d+):\d+\)?$/);
    if (!m || m[2].startsWith('node:') || m[2].includes('breakroom.mjs') || m[2].includes('debug-client.js')) continue;
    frames.push({ filename: m[2], lineno: Number(m[3]), function: m[1] || '<module>' });
  }
  return frames;
}

function parameterNames(fn) {
  const src = Function.prototype.toString.call(fn);
  const single = src.match(/^\s*(?:async\s*)?([A-Za-z_$][\w$]*)\s*=>/);
  const params = single ? single[1] : (src.match(/^[^(]*\(([^)]*)\)/) || [])[1];
  const names = [];
  let rest = null;
  for (let part of (params || '').split(',')) {
    part = part.split('=')[0].trim();
    if (!part) continue;
    if (part.startsWith('...')) {
      part = part.slice(3).trim();
      if (/^[A-Za-z_$][\w$]*$/.test(part)) rest = part;
      break;
    }
    // A destructured parameter has no name: its position is kept.
    names.push(/^[A-Za-z_$][\w$]*$/.test(part) ? part : null);
  }
  return { names, rest };
}

// ---- evaluation in the program ------------------------------------------------------------

// Names read through `with`: the session's own, then the call's locals, then the globals.
// Unknown names are the session's, so `x = 5` (or `let x = 5`, rewritten) stays for the session.
function sessionScope(locals, own) {
  return new Proxy(own, {
    has(_t, key) {
      if (typeof key === 'symbol' || key === EVAL_EXPR) return false;
      return key in own || key in locals || !(key in globalThis);
    },
    get(_t, key) {
      if (typeof key === 'symbol') return undefined;
      if (key in own) return own[key];
      if (key in locals) return locals[key];
      if (key in globalThis) return globalThis[key];
      throw new ReferenceError(`${key} is not defined`);
    },
    set(_t, key, value) {
      if (key in locals && !(key in own)) locals[key] = value;
      else own[key] = value;
      return true;
    },
  });
}

// Sloppy-mode function so that `with` works; direct eval keeps the scope chain.
const runInScope = new Function('scope', EVAL_EXPR, `with (scope) { return eval(${EVAL_EXPR}); }`);

// Top-level `let x = …` / `const` / `var` would die with the eval: they become assignments.
function keepDeclarations(code) {
  return code.replace(/(^|[;\n])(\s*)(?:let|const|var)\s+([A-Za-z_$][\w$]*)\s*=/g, '$1$2$3 =');
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'];

async function evaluate(code, scope, timeoutS) {
  const printed = [];
  const saved = CONSOLE_METHODS.map((name) => console[name]);
  CONSOLE_METHODS.forEach((name) => {
    console[name] = (...parts) => printed.push(parts.map((p) => (typeof p === 'string' ? p : repr(p))).join(' ') + '\n');
  });
  try {
    let value = runInScope(scope, keepDeclarations(code));
    if (value && typeof value.then === 'function') {
      let timer;
      const limit = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('evaluation timed out')), Math.max(0.5, timeoutS - 1) * 1000);
      });
      try {
        value = await Promise.race([value, limit]);
      } finally {
        clearTimeout(timer);
      }
    }
    // A declaration shows nothing, as in Node's REPL (which prints `undefined`) or Python's.
    const declared = /^\s*(let|const|var)\s/.test(code);
    return { result: declared ? '' : repr(value), stdout: printed.join('') };
  } catch (err) {
    const text = err instanceof Error ? `${err.name}: ${err.message}` : `Uncaught ${repr(err)}`;
    return { error: err && err.message === 'evaluation timed out' ? 'TimeoutError: evaluation timed out' : text, stdout: printed.join('') };
  } finally {
    CONSOLE_METHODS.forEach((name, i) => {
      console[name] = saved[i];
    });
  }
}

// The REPL page's helpers, answered without running the program's code: the variables panel
// (the call's locals, then the session's names; one level, nothing expands) and completion of
// names, and of property names after `name.` (names are listed, getters are not called).
function helperAnswer(kind, args, locals, own) {
  const typeOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'Array' : typeof v === 'object' ? (v.constructor && v.constructor.name) || 'Object' : typeof v);
  if (kind === 'variables') {
    const row = (name, value, scope) => ({
      name, type: typeOf(value), repr: repr(value).slice(0, 300), expandable: false, path: [['var', name]], expression: name, scope,
    });
    const rows = Object.keys(locals).filter((n) => !(n in own)).map((n) => row(n, locals[n], 'local'));
    return { variables: rows.concat(Object.keys(own).map((n) => row(n, own[n], 'session'))), timed_out: false };
  }
  if (kind === 'complete') {
    const code = String(args.code || '');
    const upto = [...code].slice(0, args.cursor_pos ?? code.length).join('');
    const m = upto.match(/(?:([A-Za-z_$][\w$]*)\.)?([A-Za-z_$][\w$]*)?$/);
    const prefix = (m && m[2]) || '';
    let names = [];
    const lookup = (n) => (n in own ? own[n] : n in locals ? locals[n] : globalThis[n]);
    if (m && m[1]) {
      for (let o = Object(lookup(m[1])); o; o = Object.getPrototypeOf(o)) names.push(...Object.getOwnPropertyNames(o));
    } else {
      names = [...Object.keys(own), ...Object.keys(locals), ...Object.getOwnPropertyNames(globalThis)];
    }
    const matches = [...new Set(names)].filter((n) => n.startsWith(prefix) && /^[A-Za-z_$][\w$]*$/.test(n)).sort();
    const end = [...upto].length;
    return { matches, cursor_start: end - prefix.length, cursor_end: end, metadata: { types: matches.map(() => '') } };
  }
  return { error: 'invalid_path', message: 'JavaScript values do not expand in the panel' };
}

// Holds the poll until the server says how to go on; answers evals meanwhile (one round trip
// each: the answer goes with the next poll).
async function waitAtPause(pauseId, locals) {
  const namespaces = new Map();
  let reply = await request('GET', `/api/poll/${encodeURIComponent(pauseId)}?evals=1`);
  for (;;) {
    if (!reply) throw new Error('breakroom: empty poll answer');
    if (reply.status === 'ready') return reply.action;
    if (reply.sessions) {
      for (const id of [...namespaces.keys()]) if (!reply.sessions.includes(id)) namespaces.delete(id);
    }
    const ev = reply.eval;
    if (!ev) {
      reply = await request('GET', `/api/poll/${encodeURIComponent(pauseId)}?evals=1`);
      continue;
    }
    const answer = { eval_id: ev.eval_id, session_id: ev.session_id, pause_id: ev.pause_id };
    if (!namespaces.has(ev.session_id)) {
      const own = Object.create(null);
      namespaces.set(ev.session_id, { own, scope: sessionScope(locals, own) });
    }
    const { own, scope } = namespaces.get(ev.session_id);
    if (ev.kind && ev.kind !== 'eval') {
      answer.result = JSON.stringify(helperAnswer(ev.kind, ev.args || {}, locals, own));
    } else {
      Object.assign(answer, await evaluate(ev.expr, scope, ev.timeout_s || 30));
    }
    try {
      reply = await request('POST', `/api/poll/${encodeURIComponent(pauseId)}?evals=1`, answer);
    } catch (err) {
      if (err instanceof Offline) throw err;
      // The session closed while the eval ran: the answer is dropped, the pause goes on.
      reply = await request('GET', `/api/poll/${encodeURIComponent(pauseId)}?evals=1`);
    }
  }
}

function pauseIdOf(action) {
  const parts = String(action.poll_url || '').split('/');
  return decodeURIComponent(parts[parts.length - 1] || '');
}

function raised(action) {
  const err = new Error(action.exception_message || '');
  err.name = action.exception_type || 'Error';
  return err;
}

// ---- calls --------------------------------------------------------------------------------

// `shown`: the parameter names, for the signature (conditions and patterns read them).
async function startCall(name, shown, args, extra) {
  await loadIdentity();
  return request('POST', '/api/call/start', {
    method_name: name,
    args: await Promise.all(args.map(item)),
    kwargs: {},
    signature: `(${shown.join(', ')})`,
    call_site: { timestamp: Date.now() / 1000, stack_trace: extra.frames },
    frames: extra.frames,
    process_pid: identity.pid,
    process_start_time: identity.startTime,
    process_id: identity.processId,
    hostname: identity.hostname,
    argv: identity.argv,
    page_url: IS_NODE ? undefined : globalThis.location && location.href,
    preferred_format: 'json',
    language: 'javascript',
    pause: extra.pause,
  });
}

async function completeCall(callId, outcome) {
  const body = { call_id: callId, timestamp: Date.now() / 1000 };
  if ('error' in outcome) {
    const err = outcome.error;
    Object.assign(body, {
      status: 'exception',
      exception_type: (err && err.name) || 'Error',
      exception_message: err && err.message !== undefined ? String(err.message) : repr(err),
      exception_traceback: err && err.stack ? String(err.stack) : undefined,
    });
  } else {
    const value = await item(outcome.result);
    Object.assign(body, {
      status: 'success',
      result_cid: value.cid,
      result_data: value.data,
      result_serialization_format: 'json',
      result_repr: value.repr,
    });
  }
  return request('POST', '/api/call/complete', body);
}

// The call's locals as the REPL sees them: parameters by name, `args`, and `this`.
function callLocals(fn, args, self) {
  const { names, rest } = parameterNames(fn);
  const locals = Object.create(null);
  names.forEach((n, i) => {
    if (n) locals[n] = args[i];
  });
  if (rest) locals[rest] = args.slice(names.length);
  if (!('args' in locals)) locals.args = args.slice();
  if (self !== undefined && self !== globalThis) locals.self = self;
  return { locals, names, rest };
}

// The arguments after the REPL: reassigned parameters replace their positions.
function argumentsAfter(original, { locals, names, rest }) {
  const args = Array.isArray(locals.args) && !names.includes('args') ? locals.args.slice() : original.slice();
  names.forEach((n, i) => {
    if (n && locals[n] !== original[i]) args[i] = locals[n];
  });
  if (rest && Array.isArray(locals[rest])) args.splice(names.length, Infinity, ...locals[rest]);
  return args;
}

async function run(name, fn, self, args) {
  if (!state.enabled || state.offline) return fn.apply(self, args);
  let action;
  const frames = stackFrames(2);
  const { names, rest } = parameterNames(fn);
  const shown = names.map((n, i) => n || `arg${i}`).concat(rest ? [`...${rest}`] : []);
  try {
    action = await startCall(name, shown, args, { frames });
  } catch (err) {
    if (!(err instanceof Offline)) throw err;
    warnOffline(err.message);
    return fn.apply(self, args);
  }
  const callId = action.call_id;
  const scope = callLocals(fn, args, self);
  if (action.action === 'poll') action = await waitOrGoOn(pauseIdOf(action), scope.locals);
  let outcome;
  try {
    outcome = { result: await perform(action, fn, self, argumentsAfter(args, scope), name) };
  } catch (err) {
    outcome = { error: err };
  }
  const after = await completeCall(callId, outcome).catch(offlineOr(null));
  if (after && after.action === 'poll') {
    // Paused after the call: the REPL sees the result (or the exception) too.
    Object.assign(scope.locals, 'error' in outcome ? { exception: outcome.error } : { result: outcome.result });
    await waitOrGoOn(pauseIdOf(after), scope.locals);
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}

// The server went away while the program was paused: say so once and go on.
function offlineOr(fallback) {
  return (err) => {
    if (!(err instanceof Offline)) throw err;
    warnOffline(err.message);
    return fallback;
  };
}

function waitOrGoOn(pauseId, locals) {
  return waitAtPause(pauseId, locals).catch(offlineOr({ action: 'continue' }));
}

async function perform(action, fn, self, args, name) {
  switch (action.action) {
    case 'continue':
      return await fn.apply(self, args);
    case 'modify':
      return await fn.apply(self, (action.modified_args || []).map(decodeItem));
    case 'skip':
      if (action.fake_result_data && (action.fake_result_serialization_format || 'json') === 'json') {
        return JSON.parse(action.fake_result_data);
      }
      return 'fake_result' in action ? action.fake_result : null;
    case 'raise':
      throw raised(action);
    case 'replace': {
      const replacement = state.replacements.get(action.function_name);
      return await (replacement || fn).apply(self, args);
    }
    default:
      throw new Error(`breakroom: unknown action ${action.action} for ${name}`);
  }
}

/** `fn` wrapped: each call asks the server first (and pauses at a breakpoint). Returns a Promise. */
export function withDebug(fn, name) {
  if (typeof fn !== 'function') throw new TypeError('withDebug expects a function');
  const callName = name || fn.name || 'anonymous';
  const wrapped = async function (...args) {
    return run(callName, fn, this, args);
  };
  Object.defineProperty(wrapped, 'name', { value: callName });
  return wrapped;
}

/** One call of `fn` under `name`: `await debugCall('total', sum, 1, 2)`. */
export async function debugCall(name, fn, ...args) {
  if (typeof name === 'function') return run(name.name || 'anonymous', name, undefined, [fn, ...args]);
  if (typeof fn !== 'function') throw new TypeError('debugCall expects (name, fn, ...args)');
  return run(String(name), fn, undefined, args);
}

/**
 * Pauses here, like `debugger;`, with the locals you pass: `({ x } = await pause({ x }))`.
 * Resolves to those locals with whatever the REPL assigned; a "raise" from the UI throws here.
 */
export async function pause(locals = {}, name) {
  if (!state.enabled || state.offline) return locals;
  const frames = stackFrames(1);
  const caller = frames.length && frames[0].function !== '<module>' ? frames[0].function : 'pause';
  const values = Object.assign(Object.create(null), locals);
  const keys = Object.keys(values);
  let reply;
  try {
    reply = await startCall(name || caller, keys, keys.map((k) => values[k]), { frames, pause: 'always' });
  } catch (err) {
    if (!(err instanceof Offline)) throw err;
    warnOffline(err.message);
    return locals;
  }
  const action = reply.action === 'poll' ? await waitOrGoOn(pauseIdOf(reply), values) : reply;
  const outcome = action.action === 'raise' ? { error: raised(action) } : { result: null };
  await completeCall(reply.call_id, outcome).catch(offlineOr(null));
  if ('error' in outcome) throw outcome.error;
  return Object.assign(locals, values);
}

const breakroom = { configure, withDebug, debugCall, pause, registerReplacement, repr };
export default breakroom;
