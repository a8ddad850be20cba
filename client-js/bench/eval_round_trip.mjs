// Eval round trip through a paused Node program: the browser's POST /api/repl/{id}/eval → the
// paused program's held poll → its answer → the browser's answer. Prints p50/p90/p99.
//
//   node client-js/bench/eval_round_trip.mjs [--bin target/release/breakroom] [--n 500] [--client breakroom|cideldill]
//
// Starts its own server (--memory, a free port) and one program running the chosen client:
// Breakroom's (client-js/breakroom.mjs), or our driver that sends what cideldill's JavaScript client
// sends (server/tests/fixtures/cideldill_js_driver.mjs).

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const bin = arg('bin', path.join(root, 'target', 'release', 'breakroom'));
const n = Number(arg('n', '500'));
const which = arg('client', 'breakroom');

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'breakroom-bench-'));
const server = spawn(bin, ['--port', '0', '--memory'], { env: { ...process.env, CIDELDILL_HOME: home }, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  let seen = '';
  server.stdout.on('data', (d) => {
    seen += d;
    const m = seen.match(/Server running on (http:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  server.on('exit', (code) => reject(new Error(`server exited ${code}: ${seen}`)));
});

const post = async (p, body) => {
  const r = await fetch(url + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return r.json();
};

const programs = {
  breakroom: `import { withDebug } from ${JSON.stringify(path.join(root, 'client-js', 'breakroom.mjs'))};
const work = withDebug(function work(a, b) { return a + b; });
console.log(await work(20, 22));`,
  cideldill: `import cd from ${JSON.stringify(path.join(root, 'server', 'tests', 'fixtures', 'cideldill_js_driver.mjs'))};
cd.configure({ serverUrl: process.env.BREAKROOM_URL }); cd.withDebug('ON');
function work(a, b) { return a + b; }
console.log(await cd.debugCall('work', work, 20, 22));`,
};
const script = path.join(home, 'program.mjs');
fs.writeFileSync(script, programs[which]);
await post('/api/breakpoints', { function_name: 'work' });
const program = spawn('node', [script], { env: { ...process.env, BREAKROOM_URL: url }, stdio: ['ignore', 'pipe', 'inherit'] });

let pauseId = null;
while (!pauseId) {
  const list = await (await fetch(`${url}/api/paused`)).json();
  pauseId = list.paused.length ? list.paused[0].id : null;
  if (!pauseId) await new Promise((r) => setTimeout(r, 10));
}
const { session_id: session } = await post('/api/repl/start', { pause_id: pauseId });
for (let i = 0; i < 20; i += 1) await post(`/api/repl/${session}/eval`, { expr: 'a + b' }); // warm-up
const times = [];
for (let i = 0; i < n; i += 1) {
  const t0 = performance.now();
  const outcome = await post(`/api/repl/${session}/eval`, { expr: `a * b + ${i}` });
  times.push(performance.now() - t0);
  if (outcome.output !== String(440 + i)) throw new Error(`unexpected answer ${JSON.stringify(outcome)}`);
}
times.sort((x, y) => x - y);
const pct = (p) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(2);
console.log(`${which} JS client, ${n} evals through a paused Node program: p50 ${pct(50)} ms, p90 ${pct(90)} ms, p99 ${pct(99)} ms (load ${os.loadavg()[0].toFixed(1)})`);
await post(`/api/paused/${pauseId}/continue`, {});
await new Promise((r) => program.on('exit', r));
server.kill();
