// A process page following a chatty program (issue 45: each event updates the part it concerns),
// measured in Debian's Chromium against the release binary. The program prints a backlog of
// 2,000 lines, then one line every TICK ms stamped with the time it printed it; for each such line
// the page shows, this prints
// - printed → shown on /process/{id} (the program's clock and the page's are the machine's),
// - the bytes the page fetched per line (every response's transferSize, headers included),
// - the bytes /processes, open beside it, fetched meanwhile.
// Figures only, never a pass/fail on time: scripts/output-bench.sh runs it.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { json, launchChromium, percentile, post, startServer } from "./support/server.mjs";

const ticks = Number(process.env.OUTPUT_BENCH_LINES || 200);
const tickMs = Number(process.env.OUTPUT_BENCH_TICK_MS || 50);
const backlog = Number(process.env.OUTPUT_BENCH_BACKLOG || 2000);

const PROGRAM = `
import sys, time
for i in range(${backlog}):
    print(f"backlog line {i} of the program's output, long enough to look like a log line")
print("ready", flush=True)
time.sleep(1.5)
i = 0
while True:
    print(f"tick {i} {time.time():.6f}", flush=True)
    i += 1
    time.sleep(${tickMs / 1000})
`;

/** Records when each `tick N T` line first shows, and every response the page fetches. */
const INSTRUMENT = () => {
  const w = window;
  w.__bench = { shown: new Map(), responses: [] };
  const look = (node) => {
    const text = node.textContent || "";
    for (const match of text.matchAll(/tick (\d+) ([\d.]+)/g)) {
      const n = Number(match[1]);
      if (!w.__bench.shown.has(n)) w.__bench.shown.set(n, [Number(match[2]) * 1000, performance.timeOrigin + performance.now()]);
    }
  };
  new MutationObserver((records) => {
    // A patched page may rewrite the text of the lines it holds rather than add new ones.
    for (const r of records) {
      if (r.type === "characterData") look(r.target);
      for (const node of r.addedNodes) look(node);
    }
  }).observe(document.body, { childList: true, subtree: true, characterData: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__bench.responses.push({ name: new URL(e.name).pathname, bytes: e.transferSize });
  }).observe({ type: "resource" });
};

const home = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-output-bench-"));
const { server, url } = await startServer(home);
const browser = await launchChromium();
try {
  const { id } = await post(`${url}/api/processes`, { command: ["python3", "-u", "-c", PROGRAM], name: "chatty" });
  const page = await (await browser.newContext()).newPage();
  for (let i = 0; i < 200; i++) {
    const detail = await json(`${url}/api/processes/${id}`);
    if (detail.stdout.lines > backlog) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  // The list of processes, open beside it: what it fetches while the program prints.
  const list = await (await browser.newContext()).newPage();
  for (const [p, href] of [[page, `/process/${id}`], [list, "/processes"]]) {
    await p.goto(url + href);
    await p.locator("body[data-hydrated]").waitFor({ state: "attached", timeout: 20_000 });
    await p.waitForFunction(() => !document.body.classList.contains("offline"));
    await p.evaluate(INSTRUMENT);
  }
  await page.waitForFunction((n) => window.__bench.shown.size >= n, ticks, { timeout: ticks * tickMs * 10 + 30_000 });
  const { shown, responses } = await page.evaluate(() => ({ shown: [...window.__bench.shown.values()], responses: window.__bench.responses }));
  const listResponses = await list.evaluate(() => window.__bench.responses);
  const listBytes = listResponses.reduce((sum, r) => sum + r.bytes, 0);
  const delays = shown.slice(0, ticks).map(([printed, seen]) => seen - printed);
  const bytes = responses.reduce((sum, r) => sum + r.bytes, 0);
  const fetched = new Map();
  for (const r of responses) fetched.set(r.name, (fetched.get(r.name) || 0) + 1);
  console.log(`process page following ${ticks} lines printed every ${tickMs} ms after a ${backlog}-line backlog`);
  console.log(`printed → shown p50 ${percentile(delays, 50).toFixed(1)} ms, p90 ${percentile(delays, 90).toFixed(1)} ms`);
  console.log(`fetched ${bytes} B in ${responses.length} responses while they showed: ${(bytes / shown.length).toFixed(0)} B per line`);
  console.log(`responses: ${[...fetched].map(([name, n]) => `${name} ×${n}`).join(", ") || "none"}`);
  console.log(`/processes open meanwhile fetched ${listBytes} B in ${listResponses.length} responses`);
  await fetch(`${url}/api/processes/${id}/stop`, { method: "POST" }).catch(() => {});
} finally {
  await browser.close();
  server.kill();
}
