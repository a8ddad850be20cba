import { expect, test } from "./fixtures";
import { open, rpcCalls, runProgram } from "./helpers";


const EVIL = `<img src=x onerror="window.__pwned = 1">`;

test("the tasks page shows a program's tasks as a tree of who awaits whom, names with markup as text", async ({
  page,
  request,
}) => {
  const dialogs: string[] = [];
  page.on("dialog", (d) => (dialogs.push(d.message()), d.dismiss()));
  const program = runProgram("async_tasks.py");
  let other: ReturnType<typeof runProgram> | undefined;
  let pause: { id: string; process_id: string } | undefined;
  await expect
    .poll(async () => {
      const { paused } = await (await request.get("/api/paused")).json();
      pause = paused.find((p: { call_data: { method_name: string } }) => p.call_data.method_name === "inner");
      return pause?.process_id ?? "";
    }, { timeout: 20_000 })
    .not.toBe("");
  try {
    // Loaded from the server, then hydrated from the same typed data.
    await open(page, `/process/${pause!.process_id}/tasks`);
    // The paused task at the top, the task awaiting it under it.
    const inner = page.locator("section.tasks > ul.task-tree > li.task.state-paused");
    await expect(inner.locator(":scope > .task-name")).toHaveText("inner <b>task</b>");
    await expect(inner.locator(":scope > a.button")).toHaveAttribute("href", `/callstack/${pause!.id}`);
    const outer = inner.locator(":scope > ul.task-tree > li.task");
    await expect(outer.locator(":scope > .task-name")).toHaveText(EVIL);
    await expect(outer.locator(":scope > .awaiting")).toHaveText("awaits task inner <b>task</b>");
    await expect(page.locator(".page-header .hint")).toContainText("paused by Breakroom");
    await expect(page).toHaveTitle(/^Tasks · .+ — Breakroom$/);

    // The paused task's debug page shows the tree under its stack, this pause's task marked and
    // the task awaiting it inside; then back to the Tasks page.
    const { session_id } = await (await request.post("/api/repl/start", { data: { pause_id: pause!.id } })).json();
    await open(page, `/repl/${session_id}`);
    const mine = page.locator(".debug-side section.debug-tasks li.task.this-pause");
    await expect(mine.locator(":scope > .task-name")).toHaveText("inner <b>task</b>");
    await expect(mine.locator(":scope > .task-state")).toHaveText("this pause");
    await expect(mine.locator(":scope > ul.task-tree > li.task > .task-name")).toHaveText(EVIL);
    const calls = rpcCalls(page);
    const readings = () => calls.filter((c) => c === "tasks_of").length;
    await open(page, `/process/${pause!.process_id}/tasks`);
    await expect(inner.locator(":scope > .task-name")).toHaveText("inner <b>task</b>");
    // Rendered on the server; read once more when the live stream opens (what changed since).
    await expect.poll(readings).toBe(1);

    // Reading the tasks asks the program, so another program's pause does not read them again.
    other = runProgram("role_pause.py");
    await expect
      .poll(async () => {
        const { paused } = await (await request.get("/api/paused")).json();
        return paused.some((p: { call_data: { method_name: string } }) => p.call_data.method_name === "settle");
      }, { timeout: 20_000 })
      .toBe(true);
    // Its pause's end is a live event: the page reads the tasks again, and the pause is gone.
    // (The stream keeps the order of events: the other program's pause came first.)
    await request.post(`/api/paused/${pause!.id}/continue`, { data: { action: "continue" } });
    await expect(page.locator("li.task.state-paused")).toHaveCount(0);
    expect(readings()).toBe(2);
    const waiting = page.locator("li.task", { has: page.locator(":scope > .task-name", { hasText: EVIL }) });
    await expect(waiting.locator(":scope > .task-state")).toHaveText("pending");
    // A debugger pauses the waiting task from its button: held where it waits (in `outer`), it is
    // listed paused, with its call stack's link; continued, it waits again.
    await waiting.locator(":scope > button.pause-task").click();
    await expect(page.locator("p.task-order")).toHaveText(`${EVIL}: paused where it waits, its loop running on`);
    await expect(waiting.locator(":scope > .task-state")).toHaveText("paused");
    const { paused } = await (await request.get("/api/paused")).json();
    const held = paused.find((p: { call_data: { method_name: string } }) => p.call_data.method_name === "outer");
    expect(held.call_data.stop.kind).toBe("task");
    await expect(waiting.locator(":scope > a.button")).toHaveAttribute("href", `/callstack/${held.id}`);
    await request.post(`/api/paused/${held.id}/continue`, { data: { action: "continue" } });
    await expect(waiting.locator(":scope > .task-state")).toHaveText("pending");
    // An admin cancels the sleeper from its button: the answer shows, and the list read again
    // says it is cancelled, with no button left on it.
    const sleeper = page.locator("li.task", { has: page.locator(":scope > .task-name", { hasText: "sleeper <i>zz</i>" }) });
    await expect(sleeper.locator(":scope > .task-state")).toHaveText("pending");
    await sleeper.locator(":scope > button.cancel-task").click();
    await expect(page.locator("p.task-order")).toHaveText("sleeper <i>zz</i>: cancelled");
    await expect(sleeper.locator(":scope > .task-state")).toHaveText("cancelled");
    await expect(sleeper.locator(":scope > button.cancel-task")).toHaveCount(0);
    await expect(waiting.locator(":scope > .task-state")).toHaveText("pending");
    expect(await page.evaluate(() => document.querySelectorAll("main img, main b, main i").length)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
  } finally {
    program.process.kill();
    other?.process.kill();
  }
});
