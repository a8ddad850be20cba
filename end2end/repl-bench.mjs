// The REPL page at the wire's speed (issue 45), measured in Debian's Chromium against the
// release binary: for a session holding 10 and 2,000 entries, per eval typed into the page,
// - the bytes the page fetched between Enter and the answer settling (every response's
//   transferSize, headers included, until 300 ms after the answer showed),
// - Enter → answer shown, and the eval's response → answer shown,
// - a second viewer of the session: the first's answer shown → the second's shown;
// and how the session opens: its document's bytes and goto → hydrated.
// Figures only, never a pass/fail on time: scripts/repl-bench.sh runs it.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { json, launchChromium, percentile, post, root, startServer } from "./support/server.mjs";

const evals = Number(process.env.REPL_BENCH_EVALS || 30);
const lengths = (process.env.REPL_BENCH_LENGTHS || "10,2000").split(",").map(Number);

/** A paused `transcript(41)` call with a session of `length` entries. */
async function session(url, length) {
  const program = spawn("python3", [path.join(root, "end2end", "programs", "transcript.py")], {
    env: { ...process.env, PYTHONPATH: path.join(root, "client"), BREAKROOM_URL: url, PYTHONUNBUFFERED: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  let pauseId;
  for (let i = 0; i < 400 && !pauseId; i++) {
    const list = await json(`${url}/api/paused`);
    pauseId = list.paused.find((p) => p.call_data.process_pid === program.pid)?.id;
    if (!pauseId) await new Promise((r) => setTimeout(r, 50));
  }
  if (!pauseId) throw new Error("transcript.py did not pause");
  const { session_id } = await post(`${url}/api/repl/start`, { pause_id: pauseId });
  for (let i = 0; i < length; i++) {
    await post(`${url}/api/repl/${session_id}/eval`, { expr: `[n, ${i}, 'entry number ${i} of the transcript']` });
  }
  const finish = async () => {
    await fetch(`${url}/api/paused/${pauseId}/continue`, { method: "POST" }).catch(() => {});
    if (program.exitCode === null) program.kill();
  };
  return { session_id, finish };
}

/** Watches the page: the time the last `.transcript .entry` appeared, and every response. */
const INSTRUMENT = () => {
  const w = window;
  w.__bench = { shown: [], responses: [], enter: 0 };
  new MutationObserver(() => {
    const count = document.querySelectorAll(".transcript .entry").length;
    w.__bench.shown.push([count, performance.timeOrigin + performance.now()]);
  }).observe(document.querySelector(".transcript"), { childList: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      w.__bench.responses.push({
        name: new URL(e.name).pathname,
        bytes: e.transferSize,
        end: performance.timeOrigin + e.responseEnd,
      });
    }
  }).observe({ type: "resource" });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") w.__bench.enter = performance.timeOrigin + performance.now();
  }, true);
};

async function measure(browser, url, length) {
  const { session_id, finish } = await session(url, length);
  const context = await browser.newContext();
  const [page, other] = [await context.newPage(), await context.newPage()];
  let opened;
  for (const p of [page, other]) {
    const started = Date.now();
    await p.goto(`${url}/repl/${session_id}`);
    await p.locator("body[data-hydrated]").waitFor({ state: "attached", timeout: 20_000 });
    // How the session opens, whatever its length: the document's bytes, and goto → hydrated
    // (the second tab's, with the wasm cached as a returning reader has it).
    opened = {
      document: await p.evaluate(() => performance.getEntriesByType("navigation")[0].transferSize),
      hydratedMs: Date.now() - started,
      entries: await p.locator(".transcript .entry").count(),
    };
    await p.waitForFunction(() => !document.body.classList.contains("offline") && document.querySelector(".transcript"));
    await p.waitForTimeout(500); // the stream's opening catch-up, not part of any eval
    await p.evaluate(INSTRUMENT);
  }
  const rows = [];
  const input = page.locator("textarea.repl-input");
  for (let i = 0; i < evals; i++) {
    const before = await page.locator(".transcript .entry").count();
    await page.evaluate(() => {
      window.__bench.responses = [];
      window.__bench.shown = [];
    });
    await other.evaluate(() => (window.__bench.shown = []));
    await input.fill(`n * ${i}`);
    await input.press("Enter");
    await page.waitForFunction((n) => window.__bench.shown.some(([count]) => count > n), before);
    await other.waitForFunction((n) => window.__bench.shown.some(([count]) => count > n), before);
    await page.waitForTimeout(300); // what the answer makes the page fetch after it showed
    const mine = await page.evaluate(() => window.__bench);
    const theirs = await other.evaluate(() => window.__bench);
    const shown = mine.shown.find(([count]) => count > before)[1];
    const otherShown = theirs.shown.find(([count]) => count > before)[1];
    const evalResponse = mine.responses.find((r) => r.name.startsWith("/rpc/eval_in_session"));
    rows.push({
      bytes: mine.responses.reduce((sum, r) => sum + r.bytes, 0),
      fetched: mine.responses.map((r) => r.name.replace("/rpc/", "")).join(" "),
      enterToShown: shown - mine.enter,
      responseToShown: evalResponse ? shown - evalResponse.end : NaN,
      secondViewer: otherShown - shown,
    });
  }
  await context.close();
  await finish();
  return { rows, opened };
}

const home = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-repl-bench-"));
const { server, url } = await startServer(home);
const browser = await launchChromium();
try {
  console.log(`REPL page, ${evals} evals per transcript length (ms; bytes are transferSize, headers included)`);
  console.log("entries | bytes/eval p50 | Enter→shown p50 p90 | response→shown p50 p90 | 2nd viewer p50 p90 | fetched per eval");
  for (const length of lengths) {
    const { rows, opened } = await measure(browser, url, length);
    const col = (key, p) => percentile(rows.map((r) => r[key]), p).toFixed(1);
    console.log(
      `${String(length).padStart(7)} | ${String(percentile(rows.map((r) => r.bytes), 50)).padStart(14)} | ` +
        `${col("enterToShown", 50)} ${col("enterToShown", 90)} | ${col("responseToShown", 50)} ${col("responseToShown", 90)} | ` +
        `${col("secondViewer", 50)} ${col("secondViewer", 90)} | ${rows[rows.length - 1].fetched}`,
    );
    console.log(
      `        opened with ${opened.entries} of its entries shown: document ${opened.document} B, ` +
        `goto → hydrated ${opened.hydratedMs} ms`,
    );
  }
} finally {
  await browser.close();
  server.kill();
}
