// Evaluation in the paused program: an input runs with the call's locals and the session's own
// names in scope, what it prints is captured, and the REPL page's helper requests (variables,
// completion) are answered without running the program's code. Part of ../breakroom.mjs.

import { REQUEST_COMPLETE, REQUEST_VARIABLES, REQUEST_WATCH } from './protocol.mjs';
import { repr } from './values.mjs';
import { REDACTED, expressionIsSecret, knownSecrets, rules } from './redaction.mjs';

const EVAL_EXPR = '__breakroom_expr__';

// Names read through `with`: the session's own, then the call's locals, then the globals.
// Unknown names are the session's, so `x = 5` (or `let x = 5`, rewritten) stays for the session.
export function sessionScope(locals, own) {
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

/** An eval's answer with secrets replaced (issue 50): by value always; by name when the input
 * names a secret (`user.password`); strings held under secret names in `locals`, anywhere. */
export async function evaluateRedacted(code, scope, timeoutS, locals) {
  const answer = await evaluate(code, scope, timeoutS);
  const known = knownSecrets(locals);
  if ('result' in answer) answer.result = expressionIsSecret(code) && answer.result ? REDACTED : rules().text(answer.result, known)[0];
  for (const key of ['stdout', 'error']) if (key in answer) answer[key] = rules().text(answer[key], known)[0];
  return answer;
}

/** A helper's answer with secrets replaced, counted in `redacted`. */
export function helperRedacted(kind, args, locals, own) {
  const answer = helperAnswer(kind, args, locals, own);
  if (!Array.isArray(answer.variables)) return answer;
  const known = knownSecrets(locals, own);
  let count = 0;
  for (const row of answer.variables) {
    if (rules().nameMatches(row.name)) {
      row.repr = REDACTED;
      count += 1;
    } else {
      const [text, n] = rules().text(row.repr, known);
      row.repr = text;
      count += n;
    }
  }
  answer.redacted = count;
  return answer;
}

export async function evaluate(code, scope, timeoutS) {
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
export function helperAnswer(kind, args, locals, own) {
  const typeOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'Array' : typeof v === 'object' ? (v.constructor && v.constructor.name) || 'Object' : typeof v);
  if (kind === REQUEST_VARIABLES) {
    const row = (name, value, scope) => ({
      name, type: typeOf(value), repr: repr(value).slice(0, 300), expandable: false, path: [['var', name]], expression: name, scope,
    });
    const rows = Object.keys(locals).filter((n) => !(n in own)).map((n) => row(n, locals[n], 'local'));
    return { variables: rows.concat(Object.keys(own).map((n) => row(n, own[n], 'session'))), timed_out: false };
  }
  if (kind === REQUEST_COMPLETE) {
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
  if (kind === REQUEST_WATCH) {
    // JavaScript has no read-only guard to evaluate under: watch expressions are not run here.
    return { unsupported: 'watch expressions are evaluated read-only by the Python client only; use the REPL here' };
  }
  return { error: 'invalid_path', message: 'JavaScript values do not expand in the panel' };
}
