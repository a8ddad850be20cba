// Values as the debug-client protocol carries them for JavaScript: JSON text under its CID (the
// SHA-512 of that text), with a display text. Part of Breakroom's JavaScript client
// (../breakroom.mjs), which the server serves as one file (see server/src/api/debug_client.rs:
// these parts' one-line imports are dropped and their exports become plain declarations).

import { FORMAT_JSON } from './protocol.mjs';
import { REDACTED, rules } from './redaction.mjs';

let clientRef = 0;

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

// A serialized item: the value as JSON text under its CID, with its display text. Under a
// secret's `name` the value is never serialized; secrets inside it are replaced (issue 50).
export async function item(value, name, known = []) {
  const redacted = name !== undefined && rules().nameMatches(name);
  let data = redacted ? JSON.stringify(REDACTED) : jsonText(value);
  const [shown] = redacted ? [REDACTED] : rules().text(repr(value), known);
  const [clean, hidden] = rules().text(data, known);
  if (hidden) {
    try {
      JSON.parse(clean);
      data = clean;
    } catch (_) {
      data = JSON.stringify(shown); // a card number that was a JSON number: its display text
    }
  }
  const cid = await sha512Hex(data);
  clientRef += 1;
  const out = { client_ref: clientRef, serialization_format: FORMAT_JSON, repr: shown };
  if (cid) Object.assign(out, { cid, data });
  return out;
}

export function decodeItem(entry) {
  if (!entry || typeof entry !== 'object') return entry;
  if ('data' in entry && (!entry.serialization_format || entry.serialization_format === FORMAT_JSON)) {
    return JSON.parse(entry.data);
  }
  throw new Error(`breakroom: cannot read a ${entry.serialization_format} value in JavaScript`);
}
