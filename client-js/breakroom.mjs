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
// token})` overrides. Several addresses, comma-separated: the first that answers is used, and
// one that stops answering is left for the next (round robin). If none can be reached, one line
// is printed and calls run without pausing until a later call finds one back (asked at most
// every 2 s); a paused call whose server goes away waits for it (BREAKROOM_RECONNECT_GRACE,
// default 120 s). An https:// server is checked against BREAKROOM_CA_FILE in Node when set (else
// Node's roots). Wire format: docs/src/js-protocol.md.

import { ACTION_CONTINUE, ACTION_MODIFY, ACTION_POLL, ACTION_RAISE, ACTION_REPLACE, ACTION_SKIP, CALL_EXCEPTION, CALL_SUCCESS, FORMAT_JSON, PAUSE_ALWAYS, POLL_READY, POLL_STOPPING, POLL_UNKNOWN, REQUEST_EVAL } from './lib/protocol.mjs';
import { decodeItem, item, repr } from './lib/values.mjs';
import { identity, IS_NODE, loadIdentity, parameterNames, stackFrames } from './lib/program.mjs';
import { evaluateRedacted, helperRedacted, sessionScope } from './lib/evaluation.mjs';
import { addRules, applyPolicy, knownSecrets, rules } from './lib/redaction.mjs';
import { describeFailure, send } from './lib/transport.mjs';

export { repr };

const DEFAULT_URL = 'http://127.0.0.1:5174';
// An absent server is asked again at most this often by a running program (issue 32).
const RECHECK_EVERY_MS = 2000;
// With several addresses, a server silent this long is taken for hung and the next is asked: a
// stopped server still accepts connections, so only silence tells, and it holds a poll at most
// 5 s (the Python client's SILENCE_TIMEOUT).
const SILENCE_MS = 6000;

const state = {
  serverUrl: null, // the address in use, one of `servers`
  servers: null,
  current: 0,
  misses: 0, // addresses failed in a row since one answered
  token: null,
  enabled: true,
  offline: false,
  retryAt: 0,
  warned: false,
  replacements: new Map(),
};

/** Options: `serverUrl`, `token`, `enabled` (false: calls run without asking the server),
 * `redactNames` and `redactValues` (regexes added to the redaction rules, issue 50). */
export function configure(options = {}) {
  if (options.redactNames !== undefined || options.redactValues !== undefined) addRules(options);
  if (options.serverUrl) useServers(options.serverUrl);
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
  useServers(url || DEFAULT_URL);
  if (state.token === null && env.BREAKROOM_TOKEN) state.token = env.BREAKROOM_TOKEN;
  return state.serverUrl;
}

// `spec`: one address, several comma-separated, or an array. In a list, an entry that is not an
// http(s) URL throws, naming it (one address is taken as it is, as it always was).
function useServers(spec) {
  const entries = (Array.isArray(spec) ? spec.map(String) : String(spec).split(','))
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length > 1) {
    entries.forEach((entry, i) => {
      let url = null;
      try {
        url = new URL(entry);
      } catch (_) {
        // named below
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        const which = `entry ${i + 1} of ${entries.length}, ${JSON.stringify(entry)},`;
        throw new Error(`breakroom: BREAKROOM_URL ${which} is not an http(s) URL`);
      }
    });
  }
  state.servers = (entries.length ? entries : [DEFAULT_URL]).map((e) => e.replace(/\/+$/, ''));
  state.current = 0;
  state.misses = 0;
  state.serverUrl = state.servers[0];
}

// The address at `index` did not answer: the next is used from now on (once, however many
// requests saw it fail). True when that one has not failed since an address last answered.
function failed(index, detail) {
  const n = state.servers.length;
  if (n < 2) return false;
  if (state.current === index) {
    state.current = (index + 1) % n;
    state.misses += 1;
    state.serverUrl = state.servers[state.current];
    if (state.misses <= n) {
      console.error(
        `breakroom: the Breakroom server at ${state.servers[index]} stopped answering (${detail}); ` +
          `using ${state.serverUrl}`
      );
    }
  }
  return state.misses < n;
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

// `moved`: the client moved on to an address not tried yet (asked at once).
class Offline extends Error {
  constructor(message, moved = false) {
    super(message);
    this.moved = moved;
  }
}

async function request(method, path, body) {
  const base = await serverUrl();
  const index = state.current;
  const url = base + path;
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  // The timeout covers the answer's body too: a server can hang halfway through one.
  const signal = state.servers.length > 1 ? AbortSignal.timeout(SILENCE_MS) : undefined;
  let response, text;
  try {
    response = await send(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
    text = response.text;
  } catch (err) {
    let detail = describeFailure(err, base);
    if ((err && err.name === 'TimeoutError') || (signal && signal.aborted)) detail = `silent for ${SILENCE_MS / 1000} s`;
    throw new Offline(detail, failed(index, detail));
  }
  state.misses = 0;
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

// True while the server is known to be away; a call after RECHECK_EVERY_MS tries it again.
function skipServer() {
  if (!state.enabled) return true;
  if (!state.offline) return false;
  if (Date.now() < state.retryAt) return true;
  state.offline = false;
  return false;
}

function warnOffline(detail, moved = false) {
  if (moved) return; // another address is asked at the next call
  state.offline = true;
  state.retryAt = Date.now() + RECHECK_EVERY_MS;
  if (state.warned) return;
  state.warned = true;
  console.error(
    `breakroom: cannot reach the Breakroom server at ${state.servers.join(' or ')} (${detail}); ` +
      'calls run without pausing. Start it with `breakroom` or set BREAKROOM_URL.'
  );
}

// Holds the poll until the server says how to go on; answers evals meanwhile (one round trip
// each: the answer goes with the next poll).
async function waitAtPause(pauseId, locals) {
  const namespaces = new Map();
  const absence = new Absence();
  const poll = () => absence.ride(() => request('GET', `/api/poll/${encodeURIComponent(pauseId)}?evals=1`));
  let reply = await poll();
  for (;;) {
    if (!reply) throw new Error('breakroom: empty poll answer');
    if (reply.status === POLL_READY) return reply.action;
    if (reply.status === POLL_STOPPING || reply.status === POLL_UNKNOWN) {
      // A server shutting down: the next one is waited for. One that does not hold this pause
      // (it restarted): the call runs on.
      if (reply.status === POLL_UNKNOWN) return { action: ACTION_CONTINUE };
      await absence.pause();
      reply = await poll();
      continue;
    }
    if (reply.sessions) {
      for (const id of [...namespaces.keys()]) if (!reply.sessions.includes(id)) namespaces.delete(id);
    }
    const ev = reply.eval;
    if (!ev) {
      reply = await poll();
      continue;
    }
    const answer = { eval_id: ev.eval_id, session_id: ev.session_id, pause_id: ev.pause_id };
    if (!namespaces.has(ev.session_id)) {
      const own = Object.create(null);
      namespaces.set(ev.session_id, { own, scope: sessionScope(locals, own) });
    }
    const { own, scope } = namespaces.get(ev.session_id);
    if (ev.kind && ev.kind !== REQUEST_EVAL) {
      answer.result = JSON.stringify(helperRedacted(ev.kind, ev.args || {}, locals, own));
    } else {
      Object.assign(answer, await evaluateRedacted(ev.expr, scope, ev.timeout_s || 30, locals));
    }
    try {
      reply = await request('POST', `/api/poll/${encodeURIComponent(pauseId)}?evals=1`, answer);
    } catch (err) {
      if (err instanceof Offline) throw err;
      // The session closed while the eval ran: the answer is dropped, the pause goes on.
      reply = await poll();
    }
  }
}

// A paused call's wait for its server: tries again with backoff (50 ms doubling to 2 s) for the
// grace period, then gives up (Offline: the call runs on).
class Absence {
  constructor() {
    this.since = null;
    this.delay = 50;
  }

  async ride(send) {
    for (;;) {
      try {
        const reply = await send();
        this.since = null;
        this.delay = 50;
        return reply;
      } catch (err) {
        if (!(err instanceof Offline)) throw err;
        if (!err.moved) await this.pause(err.message);
      }
    }
  }

  async pause(detail = 'server stopping') {
    const now = Date.now();
    if (this.since === null) this.since = now;
    const env = IS_NODE ? process.env : {};
    const given = Number(env.BREAKROOM_RECONNECT_GRACE || 120);
    const grace = (Number.isFinite(given) && given >= 0 ? given : 120) * 1000;
    if (now - this.since >= grace) throw new Offline(`${detail}; not back within ${grace / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(this.delay, grace - (now - this.since))));
    this.delay = Math.min(this.delay * 2, 2000);
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

// `shown`: the parameter names, for the signature (conditions and patterns read them). A server
// that stopped answering with another address to try: the call is told there.
async function startCall(name, shown, args, extra) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startCallOnce(name, shown, args, extra);
    } catch (err) {
      if (!(err instanceof Offline) || !err.moved || attempt >= state.servers.length) throw err;
    }
  }
}

// The server's redaction rules, read once (a server without /api/policy: the defaults stay).
let policyRead = false;
async function loadPolicy() {
  if (policyRead) return;
  policyRead = true;
  try {
    applyPolicy(await request('GET', '/api/policy'));
  } catch (err) {
    if (err instanceof Offline) policyRead = false;
  }
}

async function startCallOnce(name, shown, args, extra) {
  await loadIdentity();
  await loadPolicy();
  const named = Object.fromEntries(shown.map((n, i) => [n, args[i]]));
  const known = knownSecrets(named);
  return request('POST', '/api/call/start', {
    method_name: name,
    // This client redacts what it sends (issue 50).
    redacts: true,
    args: await Promise.all(args.map((a, i) => item(a, shown[i], known))),
    kwargs: {},
    signature: `(${shown.join(', ')})`,
    call_site: { timestamp: Date.now() / 1000, stack_trace: extra.frames },
    // A retry after a dropped connection gets the same call back, not a second one.
    request_id: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
    frames: extra.frames,
    process_pid: identity.pid,
    process_start_time: identity.startTime,
    process_id: identity.processId,
    hostname: identity.hostname,
    argv: identity.argv,
    page_url: IS_NODE ? undefined : globalThis.location && location.href,
    preferred_format: FORMAT_JSON,
    language: 'javascript',
    pause: extra.pause,
  });
}

async function completeCall(callId, outcome) {
  const body = { call_id: callId, timestamp: Date.now() / 1000, redacts: true };
  if ('error' in outcome) {
    const err = outcome.error;
    Object.assign(body, {
      status: CALL_EXCEPTION,
      exception_type: (err && err.name) || 'Error',
      exception_message: rules().text(err && err.message !== undefined ? String(err.message) : repr(err))[0],
      exception_traceback: err && err.stack ? rules().text(String(err.stack))[0] : undefined,
    });
  } else {
    const value = await item(outcome.result);
    Object.assign(body, {
      status: CALL_SUCCESS,
      result_cid: value.cid,
      result_data: value.data,
      result_serialization_format: FORMAT_JSON,
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
  if (skipServer()) return fn.apply(self, args);
  let action;
  const frames = stackFrames(2);
  const { names, rest } = parameterNames(fn);
  const shown = names.map((n, i) => n || `arg${i}`).concat(rest ? [`...${rest}`] : []);
  try {
    action = await startCall(name, shown, args, { frames });
  } catch (err) {
    if (!(err instanceof Offline)) throw err;
    warnOffline(err.message, err.moved);
    return fn.apply(self, args);
  }
  const callId = action.call_id;
  const scope = callLocals(fn, args, self);
  if (action.action === ACTION_POLL) action = await waitOrGoOn(pauseIdOf(action), scope.locals);
  let outcome;
  try {
    outcome = { result: await perform(action, fn, self, argumentsAfter(args, scope), name) };
  } catch (err) {
    outcome = { error: err };
  }
  const after = await completeCall(callId, outcome).catch(offlineOr(null));
  if (after && after.action === ACTION_POLL) {
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
    warnOffline(err.message, err.moved);
    return fallback;
  };
}

function waitOrGoOn(pauseId, locals) {
  return waitAtPause(pauseId, locals).catch(offlineOr({ action: ACTION_CONTINUE }));
}

async function perform(action, fn, self, args, name) {
  switch (action.action) {
    case ACTION_CONTINUE:
      return await fn.apply(self, args);
    case ACTION_MODIFY:
      return await fn.apply(self, (action.modified_args || []).map(decodeItem));
    case ACTION_SKIP:
      if (action.fake_result_data && (action.fake_result_serialization_format || FORMAT_JSON) === FORMAT_JSON) {
        return JSON.parse(action.fake_result_data);
      }
      return 'fake_result' in action ? action.fake_result : null;
    case ACTION_RAISE:
      throw raised(action);
    case ACTION_REPLACE: {
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
  if (skipServer()) return locals;
  const frames = stackFrames(1);
  const caller = frames.length && frames[0].function !== '<module>' ? frames[0].function : 'pause';
  const values = Object.assign(Object.create(null), locals);
  const keys = Object.keys(values);
  let reply;
  try {
    reply = await startCall(name || caller, keys, keys.map((k) => values[k]), { frames, pause: PAUSE_ALWAYS });
  } catch (err) {
    if (!(err instanceof Offline)) throw err;
    warnOffline(err.message, err.moved);
    return locals;
  }
  const action = reply.action === ACTION_POLL ? await waitOrGoOn(pauseIdOf(reply), values) : reply;
  const outcome = action.action === ACTION_RAISE ? { error: raised(action) } : { result: null };
  await completeCall(reply.call_id, outcome).catch(offlineOr(null));
  if ('error' in outcome) throw outcome.error;
  return Object.assign(locals, values);
}

const breakroom = { configure, withDebug, debugCall, pause, registerReplacement, repr };
export default breakroom;
