// `/` following pause and hit events part by part (issue 45), measured in Debian's Chromium
// against the release binary. With BREAKPOINTS breakpoints listed, a program hits a logpoint
// HITS times; then PAUSES programs pause one at a time and are continued. It prints
// - the bytes `/` fetched per hit and per pause or continue (every response's transferSize,
//   headers included), beside the whole panel and the whole list, which each event fetched before;
// - paused → card shown (the server's pause time to the card appearing in the page), and the
//   program's last hit → its count shown.
// Figures only, never a pass/fail on time: scripts/main-page-bench.sh runs it.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { json, launchChromium, percentile, post, root, startServer } from "./support/server.mjs";

const listed = Number(process.env.MAIN_PAGE_BENCH_BREAKPOINTS || 30);
const hits = Number(process.env.MAIN_PAGE_BENCH_HITS || 200);
const pauses = Number(process.env.MAIN_PAGE_BENCH_PAUSES || 10);

/** Records when each card first shows, and every response the page fetches. */
const INSTRUMENT = () => {
  const w = window;
  w.__bench = { shown: new Map(), responses: [] };
  new MutationObserver((records) => {
    for (const r of records) {
      for (const node of r.addedNodes) {
        const at = performance.timeOrigin + performance.now();
        const cards = node.querySelectorAll ? [node, ...node.querySelectorAll("[data-pause-id]")] : [];
        for (const card of cards) {
          const id = card.getAttribute("data-pause-id");
          if (id && !w.__bench.shown.has(id)) w.__bench.shown.set(id, at);
        }
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__bench.responses.push({ name: new URL(e.name).pathname, bytes: e.transferSize });
  }).observe({ type: "resource" });
};

/** What the page fetched since the last call, and its total. */
async function taken(page) {
  const responses = await page.evaluate(() => window.__bench.responses.splice(0));
  const names = new Map();
  for (const r of responses) names.set(r.name, (names.get(r.name) || 0) + 1);
  return { bytes: responses.reduce((sum, r) => sum + r.bytes, 0), names: [...names].map(([n, k]) => `${n} ×${k}`).join(", ") || "none" };
}

/** The size of a whole list as the page fetches it (asked from here: the page counts none of it). */
const whole = async (url, name) =>
  (await (await fetch(`${url}/rpc/${name}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" })).text()).length;

const home = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-main-bench-"));
const { server, url } = await startServer(home);
const browser = await launchChromium();
const children = [];
const run = (args, env = {}) => {
  const child = spawn("python3", args, {
    env: { ...process.env, PYTHONPATH: path.join(root, "client"), BREAKROOM_URL: url, PYTHONUNBUFFERED: "1", ...env },
    stdio: "ignore",
  });
  children.push(child);
  return child;
};
try {
  const counter = path.join(home, "counter.py");
  // Launched by the server, so its client follows the breakpoints; a second to arm them.
  fs.writeFileSync(counter, ["import time", "time.sleep(1)", "n = 0", `for _ in range(${hits}):`, "    n += 1", "    time.sleep(0.01)", "time.sleep(600)"].join("\n"));
  for (let i = 0; i < listed - 1; i++) await post(`${url}/api/breakpoints`, { kind: "line", file: `/srv/listed_${i}.py`, line: 3 });
  const logpoint = (await post(`${url}/api/breakpoints`, { kind: "line", file: counter, line: 5, log_message: "n={n}" })).id;
  const page = await (await browser.newContext()).newPage();
  await page.goto(url + "/");
  await page.locator("body[data-hydrated]").waitFor({ state: "attached", timeout: 20_000 });
  await page.waitForFunction(() => !document.body.classList.contains("offline"));
  const panel = await whole(url, "breakpoints_html");
  await page.evaluate(INSTRUMENT);

  // Hits.
  const launched = (await post(`${url}/api/processes`, { command: ["python3", counter], name: "counter" })).id;
  const count = async () => (await json(`${url}/api/breakpoints`)).items.find((b) => b.id === logpoint).hit_count;
  let [last, stable] = [-1, 0];
  while (stable < 10) {
    const now = await count();
    [last, stable] = [now, now === last && now > 0 ? stable + 1 : 0];
    await new Promise((r) => setTimeout(r, 100));
  }
  const settled = Date.now();
  await page.waitForFunction(([id, n]) => document.querySelector(`form[data-record="${id}"] .hit-count`)?.textContent === `hits: ${n}`, [logpoint, last], { timeout: 20_000 });
  const lag = Date.now() - settled;
  const hitFetches = await taken(page);

  // Pauses, one at a time, each continued once its card shows, beside one that stays paused
  // (the first card of an empty list, and the last leaving it, come with the whole list).
  const program = path.join(root, "end2end", "programs", "transcript.py");
  const pausedOf = async (pid) => {
    let pause;
    while (!(pause = (await json(`${url}/api/paused`)).paused.find((p) => p.call_data.process_pid === pid))) await new Promise((r) => setTimeout(r, 10));
    return pause;
  };
  const resident = await pausedOf(run([program]).pid);
  await page.waitForFunction((id) => window.__bench.shown.has(id), resident.id, { timeout: 20_000 });
  await new Promise((r) => setTimeout(r, 500));
  await taken(page);
  const delays = [];
  for (let i = 0; i < pauses; i++) {
    const pause = await pausedOf(run([program]).pid);
    await page.waitForFunction((id) => window.__bench.shown.has(id), pause.id, { timeout: 20_000 });
    delays.push((await page.evaluate((id) => window.__bench.shown.get(id), pause.id)) - pause.paused_at * 1000);
    if (i === 0) console.log(`the whole list of paused calls, 2 paused: ${await whole(url, "paused_html")} B`);
    await post(`${url}/api/paused/${pause.id}/continue`, { action: "continue" });
    await page.waitForFunction((id) => !document.querySelector(`li[data-pause-id="${id}"]`), pause.id, { timeout: 20_000 });
  }
  await new Promise((r) => setTimeout(r, 1000));
  const pauseFetches = await taken(page);

  console.log(`/ with ${listed} breakpoints listed`);
  console.log(`${last} logpoint hits: fetched ${hitFetches.bytes} B, ${(hitFetches.bytes / last).toFixed(0)} B per hit (${hitFetches.names})`);
  console.log(`the whole panel (what each hit fetched before): ${panel} B of HTML`);
  console.log(`last hit counted → count shown: ${lag} ms (polled every 100 ms, 10 polls alike before it counts as settled)`);
  console.log(`${pauses} calls paused and continued one at a time, beside one paused call: fetched ${pauseFetches.bytes} B, ${(pauseFetches.bytes / (2 * pauses)).toFixed(0)} B per pause or continue (${pauseFetches.names})`);
  console.log(`paused → card shown p50 ${percentile(delays, 50).toFixed(1)} ms, p90 ${percentile(delays, 90).toFixed(1)} ms`);
  await fetch(`${url}/api/processes/${launched}/stop`, { method: "POST" });
} finally {
  for (const child of children) child.kill();
  await browser.close();
  server.kill();
}
