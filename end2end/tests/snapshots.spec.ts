import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { APIRequestContext, expect, Page, test } from "./fixtures";
import { open, Program, rpcCalls, runProgram, screenshot } from "./helpers";

const PROGRAM = "snapshot_loop.py";
const MARKUP = "<script>alert(1)</script>";
// The program resolves a relative path against its own directory (end2end/, not programs/).
const FILE = path.join(__dirname, "..", "programs", PROGRAM);

/** The line of the program's loop (marked `# LOOP`). */
function loopLine(): number {
  const source = fs.readFileSync(FILE, "utf8");
  return source.split("\n").findIndex((line) => line.includes("# LOOP")) + 1;
}

/** The highest loop count the program has printed so far. */
function lastCount(output: string): number {
  const counts = [...output.matchAll(/^n (\d+)$/gm)].map((m) => Number(m[1]));
  return counts.length ? counts[counts.length - 1] : 0;
}

/** Opens `url` and waits until its live stream is open: the page refetches `rpc` (a server
 * function's name) once it is, for what changed since the server rendered it. */
async function openLive(page: Page, url: string, rpc: string) {
  let liveOpened = false;
  let refetchedAfter = false;
  page.on("response", (r) => {
    if (r.url().includes("/api/live")) liveOpened = true;
    else if (liveOpened && r.url().includes(`/rpc/${rpc}`)) refetchedAfter = true;
  });
  await open(page, url);
  await expect.poll(() => refetchedAfter).toBe(true);
}

/** Opens `/` and waits for the refetch its live stream triggers, which re-renders the add form. */
const openPanel = (page: Page) => openLive(page, "/", "breakpoints_html");

test("a snapshot breakpoint added from the panel captures a running loop, live on /snapshots, without pausing it", async ({
  page,
  context,
  request,
}) => {
  const dialogs: string[] = [];
  context.on("page", (p) => p.on("dialog", (d) => (dialogs.push(d.message()), d.dismiss())));
  page.on("dialog", (d) => (dialogs.push(d.message()), d.dismiss()));

  const program = runProgram(PROGRAM);
  await expect.poll(() => lastCount(program.output()), { timeout: 15_000 }).toBeGreaterThan(0);

  // The list first, empty, following the live stream.
  const list = await context.newPage();
  await openLive(list, "/snapshots", "snapshots_html");
  await expect(list.locator(".snapshots-empty")).toContainText("No snapshots yet.");

  // A refused watch expression says why, in the panel, and adds nothing.
  await openPanel(page);
  const add = page.locator("form.add-record");
  await add.getByLabel("Kind").selectOption("line");
  await add.getByLabel("Where").fill(`${FILE}:${loopLine()}`);
  await add.getByLabel("Action").selectOption("snapshot");
  await add.getByLabel("Watch expressions").fill("order.clear()");
  await add.getByRole("button", { name: "Add" }).click();
  await expect(page.locator("section.breakpoints > .error")).toContainText("clear");
  const refused = (await (await request.get("/api/breakpoints")).json()).items;
  expect(refused.filter((b: { file?: string }) => b.file === FILE)).toHaveLength(0);

  // Then a good one: two watch expressions, one per line, one of which fails at the hit.
  await add.getByLabel("Watch expressions").fill(`len(order["items"]); page; order["missing"]`);
  await add.locator("input[name=max_hits]").fill("2");
  await add.locator("input[name=expires_in]").fill("10m");
  await add.getByRole("button", { name: "Add" }).click();
  const record = page.locator("form.record[data-record]", { hasText: `${PROGRAM}:${loopLine()}` });
  await expect(record.locator(".badge.action-snapshot")).toHaveText("snapshot");
  const id = (await record.getAttribute("data-record"))!;

  // The snapshots arrive on the list without a reload; the breakpoint completes at 2.
  await expect(list.locator("tr.snapshot-row")).toHaveCount(2, { timeout: 20_000 });
  await expect(list.locator(`tr.snapshot-bp[data-breakpoint-id="${id}"] .captured`)).toHaveText("2");
  await expect(list.locator(`tr.snapshot-bp[data-breakpoint-id="${id}"] .bp-status`)).toHaveText("completed");
  const row = list.locator("tr.snapshot-row").first();
  await expect(row.locator(".glance")).toContainText(`page = '${MARKUP}'`);
  await expect(row).toContainText(`${PROGRAM}:${loopLine()}`);
  await expect(row).toContainText("main");
  await screenshot(list, "snapshots-list");

  // The panel follows too, and links to the breakpoint's snapshots.
  await expect(record.locator(".record-tally .captured")).toHaveText("2");
  await expect(record.locator(".record-tally .bp-status")).toHaveText("completed");
  await record.getByRole("link", { name: "Snapshots" }).click();
  await expect(page).toHaveURL(new RegExp(`/snapshots\\?breakpoint_id=${id}$`));
  await expect(page.locator("tr.snapshot-row")).toHaveCount(2);

  // One snapshot: the expressions, the locals tree, the markup as text.
  await row.locator("a").first().click();
  await expect(list.locator("h1")).toContainText("Snapshot snap-");
  const watch = list.locator(".snapshot-watch");
  await expect(watch.locator('li.var[data-name="len(order[\\"items\\"])"] .var-repr')).toHaveText("3");
  await expect(watch.locator('li.var[data-name="page"] .var-repr')).toHaveText(`'${MARKUP}'`);
  await expect(watch.locator(".var-error")).toContainText("missing");
  const frame = list.locator("li.snapshot-frame").first();
  await expect(frame.locator("summary").first()).toContainText("main");
  const locals = frame.locator("details[open] > ul.var-tree");
  await expect(locals.locator(':scope > li.var[data-name="page"] .var-repr')).toHaveText(`'${MARKUP}'`);
  const order = locals.locator(':scope > li.var[data-name="order"]');
  await order.locator("summary").first().click();
  await expect(order.locator('li.var[data-name="\'total\'"] .var-repr, li.var[data-name="total"] .var-repr')).toHaveText("12");
  await expect(list.locator(".snapshot-meta")).toContainText("service=e2e-snap");
  await expect(list.locator(".snapshot-meta a.snapshot-process")).toHaveAttribute("href", /^\/process\/[\w-]+$/);
  await screenshot(list, "snapshot");
  expect(await list.evaluate(() => document.querySelectorAll("main script").length)).toBe(0);
  expect(dialogs).toEqual([]);

  // An unknown snapshot is a 404 page.
  const missing = await request.get("/snapshots/snap-999999");
  expect(missing.status()).toBe(404);
  expect(await missing.text()).toContain("Not found");

  // The program never stopped: nothing paused, and its loop went on counting.
  const before = lastCount(program.output());
  await expect.poll(() => lastCount(program.output()), { timeout: 5_000 }).toBeGreaterThan(before + 10);
  const paused = (await (await request.get("/api/paused")).json()).paused;
  expect(JSON.stringify(paused)).not.toContain(PROGRAM);

  // Its labels show on /processes and filter it.
  await open(list, "/processes?label=service=e2e-snap");
  await expect(list.locator("tr.process-row .badge.label")).toHaveText(["service=e2e-snap"]);
  await open(list, "/processes?label=service=nothing-has-this");
  await expect(list.locator("section.empty")).toContainText("No processes with this label.");
  expect(dialogs).toEqual([]);

  await request.delete(`/api/breakpoints/${id}`);
});

test("a snapshot of a frame holding data shows the DataFrame's table and the array's picture, as text and an image", async ({
  page,
  request,
}) => {
  const dialogs: string[] = [];
  page.on("dialog", (d) => (dialogs.push(d.message()), d.dismiss()));
  const file = path.join(__dirname, "..", "programs", "snapshot_data.py");
  const line = fs.readFileSync(file, "utf8").split("\n").findIndex((l) => l.includes("# LOOP")) + 1;
  const program = runProgram("snapshot_data.py");
  await expect.poll(() => lastCount(program.output()), { timeout: 60_000 }).toBeGreaterThan(0);

  const added = await request.post("/api/breakpoints", {
    data: { kind: "line", file, line, action: "snapshot", max_hits: 1 },
  });
  expect(added.ok()).toBe(true);
  const id = (await added.json()).id;
  try {
    await seeTheSnapshot(page, request, id, program);
  } finally {
    // The breakpoint is a server record: the tests after this one must not meet it.
    await request.delete(`/api/breakpoints/${id}`);
  }
  expect(dialogs).toEqual([]);
});

async function seeTheSnapshot(page: Page, request: APIRequestContext, id: string, program: Program) {
  let snapshotId = "";
  await expect
    .poll(async () => {
      const listed = await (await request.get(`/api/snapshots?breakpoint_id=${id}`)).json();
      snapshotId = listed.snapshots[0]?.snapshot_id ?? "";
      return snapshotId;
    }, { timeout: 30_000 })
    .not.toBe("");

  await page.goto(`/snapshots/${snapshotId}`);
  const locals = page.locator("li.snapshot-frame").first();
  const orders = locals.locator('li.var[data-name="orders"] .snapshot-outputs .rich-table');
  await expect(orders.locator("tbody tr")).toHaveCount(20);
  await expect(orders.locator("tbody tr").nth(7).locator("td")).toHaveText(["7", "[redacted]", "<img src=x onerror=alert(1)>"]);
  const picture = locals.locator('li.var[data-name="signal"] .snapshot-outputs img.rich-image');
  await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(480);
  await expect(page.locator("body")).not.toContainText("sk-test-abcdef0123456789");
  await screenshot(page, "snapshot-data");
  expect(await page.evaluate(() => document.querySelectorAll("main script, main img[src='x']").length)).toBe(0);
  const counted = lastCount(program.output());
  await expect.poll(() => lastCount(program.output())).toBeGreaterThan(counted); // it never stopped
}


test("a snapshot that arrives while /snapshots is open shows up without a reload, its markup as text", async ({
  page,
  request,
}) => {
  const dialogs: string[] = [];
  page.on("dialog", (d) => (dialogs.push(d.message()), d.dismiss()));
  const evil = `<img src=x onerror="window.__pwned = 1">`;
  const added = await request.post("/api/breakpoints", {
    data: { kind: "line", file: `/srv/${evil}.py`, line: 3, action: "snapshot" },
  });
  expect(added.ok()).toBe(true);
  const id = (await added.json()).id;
  try {
    await openLive(page, `/snapshots?breakpoint_id=${id}`, "snapshots_html");
    await expect(page.locator(".snapshots-empty")).toContainText("No snapshots yet.");
    await expect(page).toHaveTitle(`Snapshots · ${id} — Breakroom`);
    const reloads: string[] = [];
    page.on("framenavigated", (f) => f === page.mainFrame() && reloads.push(f.url()));

    // As a program sends it: the breakpoint's file, an expression and a local, all markup.
    const sent = await request.post("/api/snapshots", {
      data: {
        breakpoint_id: id, process_pid: 4242, process_start_time: 1.5, taken_at: Date.now() / 1000,
        file: `/srv/${evil}.py`, line: 3, function: evil,
        frames: [{ file: `/srv/${evil}.py`, line: 3, function: evil, locals: [
          { name: "page", value: { type: "str", repr: `'${evil}'` } },
        ] }],
        expressions: [{ expression: evil, value: { type: "str", repr: `'${evil}'` } }],
      },
    });
    expect(sent.status()).toBe(201);
    const snapshotId = (await sent.json()).snapshot_id;

    const row = page.locator(`tr.snapshot-row[data-snapshot-id="${snapshotId}"]`);
    await expect(row).toBeVisible({ timeout: 10_000 });
    await expect(row.locator(".glance")).toContainText(`${evil} = '${evil}'`);
    await expect(row).toContainText(`/srv/${evil}.py:3`);
    await expect(page.locator(`tr.snapshot-bp[data-breakpoint-id="${id}"] .captured`)).toHaveText("1");
    expect(reloads).toEqual([]);

    // Its page, reached by the router, shows the same text.
    await row.locator("a").first().click();
    await expect(page.locator("h1")).toContainText(`Snapshot ${snapshotId}`);
    await expect(page).toHaveTitle(`Snapshot · ${snapshotId} — Breakroom`);
    await expect(page.locator('.snapshot-watch .var-repr')).toHaveText(`'${evil}'`);
    await expect(page.locator(".snapshot-place")).toContainText(evil);
    expect(await page.evaluate(() => document.querySelectorAll("main img, main script").length)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
  } finally {
    await request.delete(`/api/breakpoints/${id}`);
  }
});

// Waits for a file, then loops: line 5 is a snapshot breakpoint's, line 6 a logpoint's.
const LOOPER = [
  "import os, sys, time",
  "while not os.path.exists(sys.argv[1]):",
  "    time.sleep(0.02)",
  "for n in range(300):",
  "    seen = n",
  "    time.sleep(0.01)",
  "time.sleep(60)",
].join("\n");

test("the snapshot list takes each new snapshot on top and keeps its size, reading only what changed, whatever else hits", async ({
  page,
  request,
}) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-snapshot-news-"));
  const program = path.join(dir, "looper.py");
  const flag = path.join(dir, "go");
  fs.writeFileSync(program, LOOPER);
  const add = async (data: object) => {
    const reply = await request.post("/api/breakpoints", { data });
    expect(reply.status()).toBe(200);
    return (await reply.json()).id as string;
  };
  // Five snapshots before the page opens (as a client sends them), then eight from the program.
  const snap = await add({ kind: "line", file: program, line: 5, action: "snapshot", max_hits: 13 });
  const log = await add({ kind: "line", file: program, line: 6, log_message: "n={n}" });
  let launched = "";
  try {
    for (let n = 0; n < 5; n++) {
      const sent = await request.post("/api/snapshots", {
        data: {
          breakpoint_id: snap, process_pid: 4242, process_start_time: 1.5, taken_at: Date.now() / 1000,
          frames: [{ file: program, line: 5, function: "<module>", locals: [{ name: "seen", value: { type: "int", repr: `${-n}` } }] }],
        },
      });
      expect(sent.status()).toBe(201);
    }
    const calls = rpcCalls(page);
    await openLive(page, `/snapshots?breakpoint_id=${snap}&limit=5`, "snapshots_html");
    const rows = page.locator("tr.snapshot-row");
    await expect(rows).toHaveCount(5);
    const header = page.locator(`tr.snapshot-bp[data-breakpoint-id="${snap}"]`);
    await expect(header.locator(".captured")).toHaveText("5");

    const reply = await request.post("/api/processes", { data: { command: ["python3", program, flag], name: "looper" } });
    expect(reply.status()).toBe(200);
    launched = (await reply.json()).id;
    await expect.poll(async () => (await (await request.get(`/api/processes/${launched}`)).json()).process_key ?? null).not.toBeNull();
    fs.writeFileSync(flag, "");

    // The breakpoint completes at 13; the list shows the newest five, newest first, and its
    // older link goes on from the last of them.
    await expect(header.locator(".captured")).toHaveText("13", { timeout: 20_000 });
    await expect(header.locator(".bp-status")).toHaveText("completed");
    const newest = (await (await request.get(`/api/snapshots?breakpoint_id=${snap}&limit=5`)).json()).snapshots.map(
      (s: { snapshot_id: string }) => s.snapshot_id,
    );
    await expect.poll(() => rows.evaluateAll((rs) => rs.map((r) => r.getAttribute("data-snapshot-id")))).toEqual(newest);
    await expect(page.locator("p.older a")).toHaveAttribute("href", `/snapshots?breakpoint_id=${snap}&before=${newest[4]}`);
    // The logpoint kept hitting (its events reach this page too).
    await expect
      .poll(async () => (await (await request.get("/api/breakpoints")).json()).items.find((b: { id: string }) => b.id === log).hit_count, {
        timeout: 20_000,
      })
      .toBeGreaterThan(50);

    // The list was read whole once, when its live stream opened; each of the eight snapshots
    // cost at most one small read, and the logpoint's hits none.
    expect(calls.filter((c) => c === "snapshots_html")).toHaveLength(1);
    const news = calls.filter((c) => c === "snapshot_list_news").length;
    expect(news).toBeGreaterThan(0);
    expect(news).toBeLessThanOrEqual(8);
  } finally {
    if (launched) await request.post(`/api/processes/${launched}/stop`);
    for (const id of [snap, log]) await request.delete(`/api/breakpoints/${id}`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
