// One request to the server. In Node, an https:// address goes through node:https with one
// kept-alive agent, so the server's certificate can be checked against BREAKROOM_CA_FILE: Node's
// fetch takes no CA per request. Everything else (http://, and every request in a browser,
// which has its own roots) goes through fetch.

import { IS_NODE } from './program.mjs';

let agents = null; // Node: the https agent for BREAKROOM_CA_FILE, made on first use

async function httpsAgent() {
  if (agents) return agents;
  const https = await import('node:https');
  const caFile = process.env.BREAKROOM_CA_FILE || '';
  let ca;
  if (caFile) {
    const fs = await import('node:fs');
    try {
      ca = fs.readFileSync(caFile);
    } catch (err) {
      const problem = new Error(`cannot read BREAKROOM_CA_FILE ${caFile}: ${err.message}`);
      problem.code = 'BREAKROOM_CA_FILE';
      throw problem;
    }
  }
  // One connection kept alive per server, as the Python client keeps one per thread: an eval
  // is one round trip, not a handshake.
  agents = { https, agent: new https.Agent({ keepAlive: true, ca }) };
  return agents;
}

function viaHttps(url, { method, headers, body, signal }) {
  return httpsAgent().then(
    ({ https, agent }) =>
      new Promise((resolve, reject) => {
        const request = https.request(url, { method, headers, agent, signal }, (response) => {
          const chunks = [];
          response.on('data', (chunk) => chunks.push(chunk));
          response.on('end', () => {
            const status = response.statusCode || 0;
            resolve({ status, ok: status >= 200 && status < 300, text: Buffer.concat(chunks).toString('utf8') });
          });
          response.on('error', reject);
        });
        request.on('error', reject);
        request.end(body);
      })
  );
}

/** `{status, ok, text}` of one request; a network failure throws (with `code` when known). */
export async function send(url, options) {
  if (IS_NODE && url.startsWith('https:')) return viaHttps(url, options);
  const response = await fetch(url, options);
  return { status: response.status, ok: response.ok, text: await response.text() };
}

/** A failure's short description; a certificate this program does not trust says so, with the fix. */
export function describeFailure(err, base) {
  const code = (err && (err.code || (err.cause && err.cause.code))) || '';
  if (/CERT|SIGNATURE|ALTNAME|ISSUER/.test(code)) {
    return `the certificate of ${base} is not trusted (${code}); set BREAKROOM_CA_FILE to the CA that signed it`;
  }
  return code || String(err && err.message);
}
