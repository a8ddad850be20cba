import { expect, test } from "./fixtures";
import { open, rpcCalls, runProgram, screenshot } from "./helpers";

const count = (calls: string[], name: string) => calls.filter((c) => c === name).length;

test("Step back on a paused card returns to the earlier pause, and the timeline draws it", async ({ page }) => {
  runProgram("time_travel.py");
  await open(page, "/");
  const card = page.locator(".paused-card", { hasText: "grow" });
  await expect(card.locator(".args")).toHaveText("0");
  // The first pause has nothing before it: no Step back yet.
  await expect(card.getByRole("button", { name: "Step back" })).toHaveCount(0);
  await card.getByRole("button", { name: "Continue" }).click();
  await expect(card.locator(".args")).toHaveText("1");
  const processHref = await card.locator("a.process-link").getAttribute("href");
  try {
    await card.getByRole("button", { name: "Step back" }).click();
    // A plain form: the page comes back with the woken line's pause at the earlier call.
    await expect(page.locator(".paused-card", { hasText: "grow" }).locator(".args")).toHaveText("0");

    await open(page, `${processHref}/timeline`);
    await expect(page.locator("h1")).toContainText("Timeline");
    await expect(page.locator("svg.timeline circle").first()).toBeAttached();
    await expect(page.locator("svg.timeline .lane-name")).toContainText(["main"]);
    await expect(page.locator("table.checkpoints tr#cp-1, table.checkpoints tbody tr").first()).toContainText("grow");
    await expect(page.locator("main")).toContainText("not rewound");
    await screenshot(page, "timeline");
    // The page sends the form itself and follows the change: no new document.
    await page.evaluate(() => ((window as any).__sameDocument = true));
    await page.getByRole("button", { name: "Branch" }).first().click();
    await expect(page.locator("ul.branches")).toContainText("branch-1 from");
    await expect(page.locator("ul.branches li", { hasText: "main" })).toContainText("kept paused");
    expect(await page.evaluate(() => (window as any).__sameDocument)).toBe(true);
  } finally {
    if (processHref) await page.request.post(`/api/processes/${processHref.split("/").pop()}/stop`);
  }
});

test("a program's checkpoints are read by its own timeline and process page, not by another program's", async ({ page, context, request }) => {
  // The other program takes no checkpoints of its own: every time-travel event is this one's.
  const [own, other] = [runProgram("time_travel.py"), runProgram("transcript.py")];
  const processOf = async (pid: number) => {
    let id: string | undefined;
    await expect
      .poll(async () => {
        const listed = (await (await request.get("/api/processes")).json()).processes as { id: string; pid: number }[];
        return (id = listed.find((p) => p.pid === pid)?.id);
      })
      .toBeTruthy();
    return id!;
  };
  const pauseOf = async (pid: number, arg: string) => {
    let id: string | undefined;
    await expect
      .poll(async () => {
        const paused = (await (await request.get("/api/paused")).json()).paused as {
          id: string;
          call_data: { process_pid: number; pretty_args: unknown[] };
        }[];
        return (id = paused.find((p) => p.call_data.process_pid === pid && JSON.stringify(p.call_data.pretty_args).includes(arg))?.id);
      })
      .toBeTruthy();
    return id!;
  };
  const [ownId, otherId] = [await processOf(own.process.pid!), await processOf(other.process.pid!)];
  const ownFirst = await pauseOf(own.process.pid!, "0");
  await pauseOf(other.process.pid!, "41");
  // A checkpoint is taken as a pause goes on (the client forks then): none yet.
  const checkpointsOf = async (id: string) =>
    ((await (await request.get(`/api/processes/${id}/timeline`)).json()).checkpoints as unknown[]).length;
  expect(await checkpointsOf(ownId)).toBe(0);

  // The other program's timeline and process page, and this one's timeline.
  const otherLineCalls = rpcCalls(page);
  await open(page, `/process/${otherId}/timeline`);
  const otherPage = await context.newPage();
  const otherPageCalls = rpcCalls(otherPage);
  await open(otherPage, `/process/${otherId}`);
  const ownLine = await context.newPage();
  const ownLineCalls = rpcCalls(ownLine);
  await open(ownLine, `/process/${ownId}/timeline`);
  // Each read itself once more as its live stream opened.
  await expect.poll(() => count(otherLineCalls, "timeline_html")).toBe(1);
  await expect.poll(() => count(otherPageCalls, "process_html")).toBe(1);
  await expect.poll(() => count(ownLineCalls, "timeline_html")).toBe(1);
  const checkpoints = ownLine.locator("table.checkpoints tbody tr");
  await expect(checkpoints).toHaveCount(0);

  try {
    // This program goes on, taking a checkpoint, and pauses again: its timeline shows it.
    expect((await request.post(`/api/paused/${ownFirst}/continue`, { data: { action: "continue" } })).status()).toBe(200);
    await pauseOf(own.process.pid!, "1");
    await expect.poll(() => checkpointsOf(ownId)).toBe(1);
    await expect(checkpoints).toHaveCount(1);
    // The other program's pages read nothing for it.
    expect(count(otherLineCalls, "timeline_html")).toBe(1);
    expect(count(otherPageCalls, "process_html")).toBe(1);
  } finally {
    for (const id of [ownId, otherId]) await request.post(`/api/processes/${id}/stop`);
  }
});
