import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { APIRequestContext, expect, test } from "./fixtures";
import { open, rpcCalls, runProgram } from "./helpers";

// Pause and hit events update the part they concern (issue 45): a call that pauses or goes on
// updates its process's row on /processes, its own process page and timeline, and nothing of
// another process; a logpoint's hits update its form on / alone, keeping what the reader types.

const count = (calls: string[], name: string) => calls.filter((c) => c === name).length;

async function launch(request: APIRequestContext, command: string[], name: string): Promise<string> {
  const reply = await request.post("/api/processes", { data: { command, name } });
  expect(reply.status()).toBe(200);
  const id = (await reply.json()).id as string;
  // Its client called in (a change of its record), so no event of its start is on its way.
  await expect.poll(async () => (await (await request.get(`/api/processes/${id}`)).json()).process_key ?? null).not.toBeNull();
  return id;
}

// Waits for a file, then reaches line 4 (where the test puts a breakpoint), then sleeps.
const WAITER = ["import os, sys, time", "while not os.path.exists(sys.argv[1]):", "    time.sleep(0.02)", "here = 1", "time.sleep(60)"].join("\n");
const SLEEPER = "import time; time.sleep(60)";

test("a call that pauses and goes on updates its process's row, page and timeline alone", async ({ page, context, request }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-pause-rows-"));
  const [program, flag] = [path.join(dir, "waiter.py"), path.join(dir, "flag")];
  fs.writeFileSync(program, WAITER);
  const ids = [await launch(request, ["python3", "-c", SLEEPER], "bystander"), await launch(request, ["python3", program, flag], "waiter")];
  const [bystander, waiter] = ids;
  const added = await request.post("/api/breakpoints", { data: { kind: "line", file: program, line: 4 } });
  expect(added.status()).toBe(200);
  const breakpoint = (await added.json()).id as string;
  try {
    const list = rpcCalls(page);
    await open(page, "/processes");
    // The live stream's opening fetches the list once (what changed since the render).
    await expect.poll(() => count(list, "tracked_processes_html")).toBe(1);
    const other = await context.newPage();
    const otherCalls = rpcCalls(other);
    await open(other, `/process/${bystander}`);
    await expect.poll(() => count(otherCalls, "process_html")).toBe(1);
    const own = await context.newPage();
    await open(own, `/process/${waiter}`);
    // The timelines of both: each follows its own process's pauses only.
    const [otherLine, ownLine] = [await context.newPage(), await context.newPage()];
    const [otherLineCalls, ownLineCalls] = [rpcCalls(otherLine), rpcCalls(ownLine)];
    await open(otherLine, `/process/${bystander}/timeline`);
    await open(ownLine, `/process/${waiter}/timeline`);
    await expect.poll(() => count(otherLineCalls, "timeline_html")).toBe(1);
    await expect.poll(() => count(ownLineCalls, "timeline_html")).toBe(1);
    const row = page.locator(`table.processes.tracked tr[data-process-id="${waiter}"] .process-status`);
    await expect(row).toHaveText("running");

    // It pauses: its row and its page say so, each from its own fetch.
    fs.writeFileSync(flag, "");
    await expect(row).toHaveText("paused");
    await expect(own.locator(".process-header .process-status")).toHaveText("paused");
    expect(count(list, "tracked_process_row")).toBeGreaterThan(0);

    // It goes on: the same.
    const paused = (await (await request.get("/api/paused")).json()).paused as { id: string; call_data: { process_pid: number } }[];
    const pid = (await (await request.get(`/api/processes/${waiter}`)).json()).pid as number;
    const pause = paused.find((p) => p.call_data.process_pid === pid);
    expect(pause).toBeTruthy();
    expect((await request.post(`/api/paused/${pause!.id}/continue`, { data: { action: "continue" } })).status()).toBe(200);
    await expect(row).toHaveText("running");
    await expect(own.locator(".process-header .process-status")).toHaveText("running");

    // Its timeline read the pause and the Continue; the other's read neither.
    await expect.poll(() => count(ownLineCalls, "timeline_html")).toBeGreaterThanOrEqual(3);
    // Neither the whole list nor the other process's page or timeline was fetched again.
    expect(count(list, "tracked_processes_html")).toBe(1);
    expect(count(otherCalls, "process_html")).toBe(1);
    expect(count(otherLineCalls, "timeline_html")).toBe(1);
  } finally {
    await request.delete(`/api/breakpoints/${breakpoint}`);
    for (const id of ids) await request.post(`/api/processes/${id}/stop`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// Counts to a file's content, one logpoint line per pass, then sleeps.
const COUNTER = ["import time", "n = 0", "for _ in range(60):", "    n += 1", "    time.sleep(0.005)", "time.sleep(60)"].join("\n");

test("a logpoint's hits update its form on / alone, and what the reader types stays", async ({ page, request }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-hit-forms-"));
  const program = path.join(dir, "counter.py");
  fs.writeFileSync(program, COUNTER);
  const add = async (data: object) => {
    const reply = await request.post("/api/breakpoints", { data });
    expect(reply.status()).toBe(200);
    return (await reply.json()).id as string;
  };
  const logpoint = await add({ kind: "line", file: program, line: 4, log_message: "n={n}" });
  const quiet = await add({ kind: "line", file: program, line: 6 });
  const ids: string[] = [];
  try {
    const calls = rpcCalls(page);
    // How many fetches of one form run at once, at most.
    let [inFlight, most] = [0, 0];
    const single = (r: { url: () => string }) => new URL(r.url()).pathname === "/rpc/breakpoint_record_html";
    page.on("request", (r) => {
      if (single(r)) most = Math.max(most, ++inFlight);
    });
    for (const done of ["requestfinished", "requestfailed"] as const) {
      page.on(done, (r) => {
        if (single(r)) inFlight--;
      });
    }
    await open(page, "/");
    await expect.poll(() => count(calls, "breakpoints_html")).toBe(1);
    const form = (id: string) => page.locator(`section.breakpoints form[data-record="${id}"]`);
    await expect(form(logpoint).locator(".hit-count")).toHaveText("hits: 0");
    // Half typed in the other form, and in the logpoint's own.
    await form(quiet).locator("input[name=condition]").fill("n > 3");
    await form(logpoint).locator("input[name=hit_condition]").fill(">= 2");

    ids.push(await launch(request, ["python3", program], "counter"));
    // The last pass's line shows (before line 4 runs: n=59), and the count as the server has it (the passes before the
    // program armed the logpoint are not hits).
    await expect(form(logpoint).locator(".record-log")).toHaveText("last log: n=59", { timeout: 20_000 });
    const stored = (await (await request.get("/api/breakpoints")).json()).items.find((b: { id: string }) => b.id === logpoint);
    expect(stored.hit_count).toBeGreaterThan(10);
    await expect(form(logpoint).locator(".hit-count")).toHaveText(`hits: ${stored.hit_count}`);

    // The reader's text is where it was; the list was never fetched again, only the one form.
    await expect(form(quiet).locator("input[name=condition]")).toHaveValue("n > 3");
    await expect(form(logpoint).locator("input[name=hit_condition]")).toHaveValue(">= 2");
    expect(count(calls, "breakpoints_html")).toBe(1);
    expect(count(calls, "breakpoint_record_html")).toBeGreaterThan(0);
    // A hot logpoint costs one fetch at a time: hits that come meanwhile wait as one.
    expect(most).toBe(1);
  } finally {
    for (const id of ids) await request.post(`/api/processes/${id}/stop`);
    for (const id of [logpoint, quiet]) await request.delete(`/api/breakpoints/${id}`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a call that pauses gets its card on / alone, one that goes on leaves with nothing fetched, and a half-typed value stays", async ({ page, request }) => {
  const pauseOf = async (pid: number) => {
    let id: string | undefined;
    await expect
      .poll(async () => (id = ((await (await request.get("/api/paused")).json()).paused as { id: string; call_data: { process_pid: number } }[]).find((p) => p.call_data.process_pid === pid)?.id))
      .toBeTruthy();
    return id!;
  };
  const first = runProgram("transcript.py");
  const firstPause = await pauseOf(first.process.pid!);
  const calls = rpcCalls(page);
  await open(page, "/");
  // The live stream's opening fetches the list once (what changed since the render).
  await expect.poll(() => count(calls, "paused_html")).toBe(1);
  const card = (id: string) => page.locator(`ul.paused-list li.paused-card[data-pause-id="${id}"]`);
  await card(firstPause).locator("summary").click();
  await card(firstPause).locator("input[name=value]").fill("[1, 2]");

  // A second call pauses: its card comes alone, last.
  const second = runProgram("transcript.py");
  const secondPause = await pauseOf(second.process.pid!);
  await expect(card(secondPause)).toBeVisible();
  expect(await page.locator("ul.paused-list li.paused-card").last().getAttribute("data-pause-id")).toBe(secondPause);
  expect(count(calls, "paused_card_html")).toBeGreaterThan(0);

  // A REPL opened on it elsewhere: its card offers to go to it.
  const { session_id } = await (await request.post("/api/repl/start", { data: { pause_id: secondPause } })).json();
  await expect(card(secondPause).locator(`a[href="/repl/${session_id}"]`)).toHaveText("Go to open REPL");

  // It goes on: its card leaves, with nothing fetched for it.
  const before = calls.length;
  expect((await request.post(`/api/paused/${secondPause}/continue`, { data: { action: "continue" } })).status()).toBe(200);
  await expect(card(secondPause)).toHaveCount(0);
  expect(await second.exited).toBe(0);
  expect(calls.slice(before)).toEqual([]);

  // The first card kept what was typed in it; the whole list was never fetched again.
  await expect(card(firstPause).locator("input[name=value]")).toHaveValue("[1, 2]");
  expect(count(calls, "paused_html")).toBe(1);
  await request.post(`/api/paused/${firstPause}/continue`, { data: { action: "continue" } });
  await expect(card(firstPause)).toHaveCount(0);
  expect(await first.exited).toBe(0);
});

test("a call that pauses while / is still on its way after a client-side navigation gets its card", async ({ page, request }) => {
  await open(page, "/repls");
  // The list's first fetch is answered as the server had it, but held back until the call paused.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  await page.route("**/rpc/paused_html*", async (route) => {
    if (held++ > 0) return route.continue();
    const response = await route.fetch();
    await gate;
    await route.fulfill({ response });
  });
  await page.locator("a.brand").click();
  await expect.poll(() => held).toBe(1);

  const program = runProgram("transcript.py");
  const cardFetched = page.waitForResponse((r) => new URL(r.url()).pathname === "/rpc/paused_card_html");
  let pauseId: string | undefined;
  await expect
    .poll(async () => (pauseId = ((await (await request.get("/api/paused")).json()).paused as { id: string; call_data: { process_pid: number } }[]).find((p) => p.call_data.process_pid === program.process.pid)?.id))
    .toBeTruthy();
  // Its card was fetched before the list it goes into was there.
  await cardFetched;
  release();
  await expect(page.locator(`ul.paused-list li.paused-card[data-pause-id="${pauseId}"]`)).toBeVisible();
  await request.post(`/api/paused/${pauseId}/continue`, { data: { action: "continue" } });
  expect(await program.exited).toBe(0);
});

test("a process's calls update its row of /call-tree alone, which moves up, and the list is not read again", async ({ page, request }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-call-rows-"));
  const flag = path.join(dir, "go");
  // with_debug's calls are recorded and go on (they would pause by default).
  expect((await request.post("/api/breakpoints", { data: { function_name: "tick", behavior: "go" } })).status()).toBe(200);
  const busy = runProgram("ticker.py", {}, [flag, "20"]);
  let quiet: ReturnType<typeof runProgram> | undefined;
  try {
    await expect.poll(() => busy.output(), { timeout: 15_000 }).toContain("listed");
    // The quiet one starts once the busy one has called, so it calls last and is listed first
    // (started together, the two can call in either order, or in the same millisecond).
    quiet = runProgram("ticker.py", {}, [path.join(dir, "never"), "0"]);
    await expect.poll(() => quiet!.output(), { timeout: 15_000 }).toContain("listed");
    const calls = rpcCalls(page);
    await open(page, "/call-tree");
    // Read whole once more when its live stream opens.
    await expect.poll(() => count(calls, "processes_html")).toBe(1);
    const row = (pid: number | undefined) => page.locator(`.call-tree-processes tr[data-process-key$="+${pid}"]`);
    const first = page.locator(".call-tree-processes tbody tr").first();
    await expect(first).toHaveAttribute("data-process-key", new RegExp(`\\+${quiet.process.pid}$`));
    await expect(row(busy.process.pid).locator("td.num").first()).toHaveText("1");

    fs.writeFileSync(flag, "");
    await expect.poll(() => busy.output(), { timeout: 15_000 }).toContain("done");
    await expect(row(busy.process.pid).locator("td.num").first()).toHaveText("21");
    await expect(first).toHaveAttribute("data-process-key", new RegExp(`\\+${busy.process.pid}$`));
    await expect(row(quiet.process.pid).locator("td.num").first()).toHaveText("1");
    // Its own row was read, the list never again.
    expect(count(calls, "processes_html")).toBe(1);
    expect(count(calls, "call_tree_process_row")).toBeGreaterThan(0);
  } finally {
    busy.process.kill();
    quiet?.process.kill();
    await request.delete("/api/breakpoints/tick");
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a busy process's call tree is read one at a time, never cancelled, and ends with every call", async ({ page, request }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-busy-tree-"));
  const flag = path.join(dir, "go");
  expect((await request.post("/api/breakpoints", { data: { function_name: "tick", behavior: "go" } })).status()).toBe(200);
  const busy = runProgram("ticker.py", {}, [flag, "200"]);
  try {
    await expect.poll(() => busy.output(), { timeout: 15_000 }).toContain("listed");
    await open(page, "/call-tree");
    const key = await page.locator(`.call-tree-processes tr[data-process-key$="+${busy.process.pid}"]`).getAttribute("data-process-key");
    const reads = (r: { url: () => string }) => new URL(r.url()).pathname === "/rpc/call_tree_html";
    let [inFlight, most, cancelled, started] = [0, 0, 0, 0];
    page.on("request", (r) => {
      if (reads(r)) (most = Math.max(most, ++inFlight)), started++;
    });
    page.on("requestfinished", (r) => {
      if (reads(r)) inFlight--;
    });
    page.on("requestfailed", (r) => {
      if (reads(r)) inFlight--, cancelled++;
    });
    await open(page, `/call-tree/${encodeURIComponent(key!)}`);
    await expect(page.locator(".call-node")).toHaveCount(1);
    await expect.poll(() => started).toBeGreaterThan(0); // the read when its live stream opened

    // 200 calls, each a start and an end: 400 events of its own, 10 ms apart at most.
    fs.writeFileSync(flag, "");
    await expect.poll(() => busy.output(), { timeout: 30_000 }).toContain("done");
    await expect(page.locator(".call-node")).toHaveCount(201, { timeout: 15_000 });
    await expect(page.locator(".call-node").last()).toContainText("tick(200)");
    await expect(page.locator(".call-node").last()).toContainText("→ 200");
    expect(cancelled).toBe(0);
    expect(most).toBe(1);
    expect(started).toBeLessThan(400);
  } finally {
    busy.process.kill();
    await request.delete("/api/breakpoints/tick");
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
