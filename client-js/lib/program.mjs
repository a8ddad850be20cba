// Where the program is: its identity as the server tracks processes (pid, start time, host,
// argv), its stack as frames, and a function's parameter names. Part of ../breakroom.mjs.

export const IS_NODE = typeof process !== 'undefined' && !!(process.versions && process.versions.node);

export const identity = { pid: 0, startTime: null, hostname: undefined, argv: undefined, processId: undefined };
let identityReady = null;

export function loadIdentity() {
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

// The client's own frames are left out: its files on disk, or the one file the server serves.
const OWN_FILES = ['breakroom.mjs', 'client-js/lib/', 'debug-client.js'];

// V8's stack lines: "    at name (file:line:col)" or "    at file:line:col".
export function stackFrames(skip) {
  const lines = String(new Error().stack || '').split('\n').slice(1 + skip);
  const frames = [];
  for (const line of lines) {
    const m = line.match(/^\s*at (?:async )?(?:(.*?) \()?(.*?):(\d+):\d+\)?$/);
    if (!m || m[2].startsWith('node:') || OWN_FILES.some((own) => m[2].includes(own))) continue;
    frames.push({ filename: m[2], lineno: Number(m[3]), function: m[1] || '<module>' });
  }
  return frames;
}

export function parameterNames(fn) {
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
