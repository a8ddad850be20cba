// What never leaves the program (issue 50): secrets become `[redacted]` before anything is sent.
// The same rules as the Python client (client/breakroom/redaction.py) and the server
// (debugger/src/policy/mod.rs): the server's, received from GET /api/policy, plus the
// program's own (configure({ redactNames, redactValues })). Part of Breakroom's JavaScript
// client (../breakroom.mjs); client/tests/test_redaction.py checks the defaults agree.

export const REDACTED = '[redacted]';
export const DEFAULT_NAMES = ['password', 'passwd', 'secret', 'token', 'api_?key', 'auth', 'credential', 'private_?key', 'cookie', 'session_?id', 'ssn'];
export const DEFAULT_VALUES = [
  'eyJ[A-Za-z0-9_-]{4,}\\.eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]*',
  '\\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\\b',
  '-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?-----END [A-Z ]*PRIVATE KEY-----',
  '\\bBearer\\s+[A-Za-z0-9._~+/=-]+',
];
const CARD_NUMBER = '\\b\\d(?:[ -]?\\d){12,18}\\b';
const KEY_VALUE = '([A-Za-z_][A-Za-z0-9_.-]*)([\'"]?)(\\s*[=:]\\s*)(\'[^\']*\'|"[^"]*"|[^\\s,;&)}\\]]+)';

function luhn(text) {
  const digits = [...text].filter((c) => c >= '0' && c <= '9').map(Number);
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  digits.reverse().forEach((d, i) => {
    let v = i % 2 ? d * 2 : d;
    if (v > 9) v -= 9;
    sum += v;
  });
  return sum % 10 === 0;
}

function compile(rules, flags) {
  const valid = rules.filter((r) => {
    try {
      new RegExp(r);
      return true;
    } catch (_) {
      return false;
    }
  });
  return valid.length ? new RegExp(valid.map((r) => `(?:${r})`).join('|'), flags) : null;
}

class Rules {
  constructor(names, values, cards) {
    this.names = names;
    this.values = values;
    this.cards = cards;
    this.nameTest = compile(names, 'i');
    this.valueRe = compile(values, 'g');
  }

  nameMatches(name) {
    return this.nameTest !== null && typeof name === 'string' && this.nameTest.test(name);
  }

  /** [text with its secrets replaced, how many were]; `known`: strings held under secret names. */
  text(text, known = []) {
    if (typeof text !== 'string' || !text) return [text, 0];
    let count = 0;
    for (const secret of known) {
      if (text.includes(secret)) {
        count += text.split(secret).length - 1;
        text = text.split(secret).join(REDACTED);
      }
    }
    if (this.valueRe) {
      text = text.replace(this.valueRe, () => {
        count += 1;
        return REDACTED;
      });
    }
    if (this.cards) {
      text = text.replace(new RegExp(CARD_NUMBER, 'g'), (m) => {
        if (!luhn(m)) return m;
        count += 1;
        return REDACTED;
      });
    }
    if (this.nameTest && (text.includes('=') || text.includes(':'))) {
      text = text.replace(new RegExp(KEY_VALUE, 'g'), (m, key, quote, sep, value) => {
        if (value.includes(REDACTED) || !this.nameMatches(key)) return m;
        count += 1;
        const q = value[0] === "'" || value[0] === '"' ? value[0] : '';
        return `${key}${quote}${sep}${q}${REDACTED}${q}`;
      });
    }
    return [text, count];
  }
}

let server = null; // the server's rules, once read
const own = { names: [], values: [] };
let current = build();

function build() {
  const names = server ? [...server.names] : [...DEFAULT_NAMES];
  const values = server ? [...server.values] : [...DEFAULT_VALUES];
  const cards = server ? server.cards : true;
  own.names.forEach((r) => names.includes(r) || names.push(r));
  own.values.forEach((r) => values.includes(r) || values.push(r));
  return new Rules(names, values, cards);
}

export function rules() {
  return current;
}

/** The server's rules (GET /api/policy). */
export function applyPolicy(policy) {
  if (!policy || typeof policy !== 'object') return;
  const list = (v) => (Array.isArray(v) ? v.filter((r) => typeof r === 'string') : []);
  server = { names: list(policy.names), values: list(policy.values), cards: policy.cards === true };
  current = build();
}

// Rules separated by commas; a comma inside `{…}` or `[…]`, or escaped, is the rule's own.
function splitRules(text) {
  const rules = [];
  let depth = 0;
  let escaped = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') depth -= 1;
    else if (c === ',' && depth <= 0) {
      rules.push(text.slice(start, i));
      start = i + 1;
    }
  }
  rules.push(text.slice(start));
  return rules.map((r) => r.trim()).filter(Boolean);
}

/** The program's own rules: a regex, a list, or commas between several. */
export function addRules({ redactNames, redactValues } = {}) {
  const split = (given) => (given === undefined ? [] : [].concat(given).flatMap((g) => splitRules(String(g))));
  own.names.push(...split(redactNames));
  own.values.push(...split(redactValues));
  current = build();
}

/** Strings held under secret names in `scope` (a call's locals): hidden wherever else they show. */
export function knownSecrets(...scopes) {
  const found = [];
  for (const scope of scopes) {
    for (const name of Object.keys(scope || {})) {
      const value = scope[name];
      if (typeof value === 'string' && value.length >= 4 && current.nameMatches(name)) found.push(value);
    }
  }
  return found;
}

/** Whether REPL input names a secret: `password`, `user.password`, `cfg["api_key"]`. */
export function expressionIsSecret(code) {
  const m = String(code).match(/(?:^|\.)\s*([A-Za-z_$][\w$]*)\s*;?\s*$|\[\s*(['"])([^'"]*)\2\s*\]\s*;?\s*$/);
  if (!m || !/^\s*[A-Za-z_$][\w$.\s]*(\[\s*['"][^'"]*['"]\s*\])*\s*;?\s*$/.test(code)) return false;
  return current.nameMatches(m[1] ?? m[3]);
}
