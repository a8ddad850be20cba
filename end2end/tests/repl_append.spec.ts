import { APIRequestContext, expect, test } from "./fixtures";
import { open, rpcCalls, runProgram } from "./helpers";

/** The pause of the `transcript(41)` call the program makes, once it is paused. */
async function pauseOf(request: APIRequestContext, pid: number): Promise<string> {
  let id: string | undefined;
  await expect
    .poll(async () => {
      const paused = (await (await request.get("/api/paused")).json()).paused;
      id = paused.find((p: { call_data: { process_pid: number } }) => p.call_data.process_pid === pid)?.id;
      return id;
    })
    .toBeTruthy();
  return id!;
}


test("an eval's answer is appended from its reply, and a second viewer gets it from the live event; nothing refetches the transcript", async ({
  page,
  context,
  request,
}) => {
  const program = runProgram("transcript.py");
  const pauseId = await pauseOf(request, program.process.pid!);
  const { session_id } = await (await request.post("/api/repl/start", { data: { pause_id: pauseId } })).json();

  // Before the page is hydrated its input box is visibly disabled: a key pressed then is not
  // silently lost. Once hydrated it takes input.
  const served = await (await request.get(`/repl/${session_id}`)).text();
  expect(served).toMatch(/<textarea[^>]*class="repl-input"[^>]*disabled|<textarea[^>]*disabled[^>]*class="repl-input"/);
  await open(page, `/repl/${session_id}`);
  await expect(page.locator("textarea.repl-input")).toBeEnabled();
  const other = await context.newPage();
  await open(other, `/repl/${session_id}`);
  // The live stream is open on both (the transcript catches up once it opens).
  await expect.poll(() => other.evaluate(() => document.body.classList.contains("offline"))).toBe(false);
  const mine = rpcCalls(page);
  const theirs = rpcCalls(other);

  const input = page.locator("textarea.repl-input");
  await input.fill("n * 2");
  await input.press("Enter");
  await expect(page.locator(".transcript .entry")).toHaveCount(1);
  await expect(page.locator(".transcript .entry").first()).toContainText("82");
  await expect(other.locator(".transcript .entry")).toHaveCount(1);
  await expect(other.locator(".transcript .entry").first()).toContainText("82");

  // Marks the first entry's element: later answers must leave it where it is, not re-render it.
  await page.evaluate(() => ((document.querySelector(".transcript .entry") as any).__kept = true));
  await input.fill("print('side')");
  await input.press("Enter");
  await expect(page.locator(".transcript .entry")).toHaveCount(2);
  await expect(other.locator(".transcript .entry").nth(1)).toContainText("side");
  // An entry the second viewer adds reaches the first the same way.
  await other.locator("textarea.repl-input").fill("n - 1");
  await other.locator("textarea.repl-input").press("Enter");
  await expect(page.locator(".transcript .entry")).toHaveCount(3);
  await expect(page.locator(".transcript .entry").nth(2)).toContainText("40");

  // Each eval asked once; the variables panel looked again; no page or transcript was refetched.
  const transcriptFetches = (calls: string[]) =>
    calls.filter((c) => ["repl_page", "repl_transcript", "repl_entries"].includes(c));
  expect(mine.filter((c) => c === "eval_in_session")).toHaveLength(2);
  expect(theirs.filter((c) => c === "eval_in_session")).toHaveLength(1);
  expect(transcriptFetches(mine)).toEqual([]);
  expect(transcriptFetches(theirs)).toEqual([]);
  expect(await page.evaluate(() => (document.querySelector(".transcript .entry") as any).__kept)).toBe(true);

  // Another program's pause is not this page's news: its header (which asks the program for its
  // tasks) is not read again. The second viewer's next entry comes after that pause on the same
  // stream, so once the page shows it, the page has heard of the pause.
  const bystander = runProgram("transcript.py");
  await pauseOf(request, bystander.process.pid!);
  await other.locator("textarea.repl-input").fill("n + 1");
  await other.locator("textarea.repl-input").press("Enter");
  await expect(page.locator(".transcript .entry")).toHaveCount(4);
  await expect(page.locator(".transcript .entry").nth(3)).toContainText("42");
  expect(transcriptFetches(mine)).toEqual([]);
  bystander.process.kill();

  // Its own pause's Continue is: the header says the session closed.
  await request.post(`/api/paused/${pauseId}/continue`, { data: { action: "continue" } });
  expect(await program.exited).toBe(0);
  await expect(page.locator(".closed-note")).toBeVisible();
  await expect(page.locator("textarea.repl-input")).toHaveCount(0);
  await expect(page.locator(".transcript .entry")).toHaveCount(4);
});

test("a long transcript opens at its newest entries and loads earlier ones on demand, and a closed one replays them all", async ({
  page,
  request,
}) => {
  const program = runProgram("transcript.py");
  const pauseId = await pauseOf(request, program.process.pid!);
  const { session_id } = await (await request.post("/api/repl/start", { data: { pause_id: pauseId } })).json();
  for (let i = 0; i < 250; i++) {
    const answer = await request.post(`/api/repl/${session_id}/eval`, { data: { expr: `${i} + 1000` } });
    expect(answer.ok()).toBe(true);
  }

  await open(page, `/repl/${session_id}`);
  const entries = page.locator(".transcript .entry");
  await expect(entries).toHaveCount(100);
  await expect(entries.first()).toContainText("150 + 1000");
  await expect(entries.last()).toContainText("1249");
  const earlier = page.locator("button.transcript-earlier");
  await expect(earlier).toHaveText("Show earlier entries (150 more)");
  await earlier.click();
  await expect(entries).toHaveCount(200);
  await expect(entries.first()).toContainText("50 + 1000");
  await earlier.click();
  await expect(entries).toHaveCount(250);
  await expect(entries.first()).toContainText("0 + 1000");
  await expect(earlier).toHaveCount(0);
  // ↑ walks every input, the earliest loaded ones included.
  await page.locator("textarea.repl-input").press("ArrowUp");
  await expect(page.locator("textarea.repl-input")).toHaveValue("249 + 1000");

  await request.post(`/api/paused/${pauseId}/continue`, { data: { action: "continue" } });
  expect(await program.exited).toBe(0);
  // A closed session opens at its newest too; its replay first loads the rest, then shows
  // the entries one by one from none.
  await open(page, `/repl/${session_id}`);
  await expect(entries).toHaveCount(100);
  await page.locator(".replay-speed").selectOption("4");
  await page.locator("button.replay-start").click();
  await expect(page.locator(".replay-progress")).toContainText("of 250");
  await expect(entries).toHaveCount(250);
  await page.locator("button.replay-stop").click();
  await expect(page.locator(".transcript .entry.replay-hidden")).toHaveCount(0);
});
