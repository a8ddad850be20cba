// /processes following process events row by row (issue 45), measured in Debian's Chromium
// against the release binary. With LISTED processes running, it launches EVENTS more one at a
// time and prints
// - launched → row shown (the launch request's start to the row appearing in the page),
// - the bytes the page fetched per process event (every response's transferSize, headers
//   included), beside the bytes of one whole list, which each event fetched before.
// Figures only, never a pass/fail on time: scripts/process-list-bench.sh runs it.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { launchChromium, percentile, post, startServer } from "./support/server.mjs";

const listed = Number(process.env.PROCESS_LIST_BENCH_LISTED || 40);
const events = Number(process.env.PROCESS_LIST_BENCH_EVENTS || 20);
const SLEEPER = ["python3", "-c", "import time; time.sleep(600)"];

/** Records when each row first shows, and every response the page fetches. */
const INSTRUMENT = () => {
  const w = window;
  w.__bench = { shown: new Map(), responses: [] };
  new MutationObserver((records) => {
    for (const r of records) {
      for (const node of r.addedNodes) {
        const id = node.getAttribute?.("data-process-id");
        if (id && !w.__bench.shown.has(id)) w.__bench.shown.set(id, performance.timeOrigin + performance.now());
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__bench.responses.push({ name: new URL(e.name).pathname, bytes: e.transferSize });
  }).observe({ type: "resource" });
};

const home = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-list-bench-"));
const { server, url } = await startServer(home);
const browser = await launchChromium();
const ids = [];
try {
  for (let i = 0; i < listed; i++) ids.push((await post(`${url}/api/processes`, { command: SLEEPER, name: `listed-${i}` })).id);
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${url}/processes`);
  await page.locator("body[data-hydrated]").waitFor({ state: "attached", timeout: 20_000 });
  await page.waitForFunction(() => !document.body.classList.contains("offline"));
  await page.waitForFunction((n) => document.querySelectorAll("tr.process-row").length >= n, listed);
  // The size of the whole list, as one event fetched it before.
  const whole = await page.evaluate(async () => {
    const reply = await fetch("/rpc/tracked_processes_html", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "all=false" });
    return (await reply.text()).length;
  });
  await page.evaluate(INSTRUMENT);
  const delays = [];
  for (let i = 0; i < events; i++) {
    const started = Date.now();
    const { id } = await post(`${url}/api/processes`, { command: SLEEPER, name: `new-${i}` });
    ids.push(id);
    await page.waitForFunction((id) => window.__bench.shown.has(id), id, { timeout: 20_000 });
    delays.push((await page.evaluate((id) => window.__bench.shown.get(id), id)) - started);
  }
  // Each launch is two process events: started, then its client's call-in (attached). Wait for
  // the second ones' fetches to settle before counting.
  await new Promise((r) => setTimeout(r, 2500));
  const responses = await page.evaluate(() => window.__bench.responses);
  const bytes = responses.reduce((sum, r) => sum + r.bytes, 0);
  const fetched = new Map();
  for (const r of responses) fetched.set(r.name, (fetched.get(r.name) || 0) + 1);
  console.log(`/processes with ${listed} processes listed, ${events} more launched one at a time`);
  console.log(`launched → row shown p50 ${percentile(delays, 50).toFixed(1)} ms, p90 ${percentile(delays, 90).toFixed(1)} ms`);
  console.log(`fetched ${bytes} B in ${responses.length} responses: ${(bytes / events).toFixed(0)} B per launched process`);
  console.log(`responses: ${[...fetched].map(([name, n]) => `${name} ×${n}`).join(", ") || "none"}`);
  console.log(`the whole list (what each event fetched before): ${whole} B of HTML`);
} finally {
  for (const id of ids) await fetch(`${url}/api/processes/${id}/stop`, { method: "POST" }).catch(() => {});
  await browser.close();
  server.kill();
}
