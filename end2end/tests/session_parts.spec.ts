import { APIRequestContext, BrowserContext, Page, expect, test } from "./fixtures";
import { open, rpcCalls, runProgram } from "./helpers";

// The pages that list REPL sessions follow their own (issue 45): a session's new entry moves its
// count on in place on the call stack and on /repls, with nothing fetched; the call stack and the
// call tree of one pause read nothing for another pause's sessions or calls, and the call stack
// reads its header and sessions again (`call_stack_html`) for its own pause's sessions and its
// Continue, never its frames (`call_stack_frames_html`).

const count = (calls: string[], name: string) => calls.filter((c) => c === name).length;

async function pauseOf(request: APIRequestContext, pid: number): Promise<string> {
  let id: string | undefined;
  await expect
    .poll(async () => {
      const paused = (await (await request.get("/api/paused")).json()).paused as { id: string; call_data: { process_pid: number } }[];
      return (id = paused.find((p) => p.call_data.process_pid === pid)?.id);
    })
    .toBeTruthy();
  return id!;
}

async function startSession(request: APIRequestContext, pauseId: string): Promise<string> {
  const reply = await request.post("/api/repl/start", { data: { pause_id: pauseId } });
  expect(reply.status()).toBe(200);
  return (await reply.json()).session_id as string;
}

/** The call stack's sessions as `page` shows them, patched in place, and as the server renders
 * them for a page opened now: the two must read the same. */
async function sessionsPart(page: Page, context: BrowserContext, url: string): Promise<[string, string]> {
  const part = (p: Page) => p.locator("section.related").evaluate((e) => e.innerHTML);
  const fresh = await context.newPage();
  await open(fresh, url);
  const rendered = await part(fresh);
  await fresh.close();
  return [await part(page), rendered];
}

async function evalIn(request: APIRequestContext, sessionId: string, expr: string) {
  const reply = await request.post(`/api/repl/${sessionId}/eval`, { data: { expr } });
  expect(reply.status()).toBe(200);
}

test("a session's entries move its count on in place; another pause's sessions and calls cost the call stack and the call tree nothing", async ({
  page,
  context,
  request,
}) => {
  const [own, other] = [runProgram("transcript.py"), runProgram("transcript.py")];
  const ownPause = await pauseOf(request, own.process.pid!);
  const otherPause = await pauseOf(request, other.process.pid!);
  const ownSession = await startSession(request, ownPause);
  const otherSession = await startSession(request, otherPause);

  const stackCalls = rpcCalls(page);
  await open(page, `/callstack/${ownPause}`);
  // The live stream's opening reads the page once (what changed since the render).
  await expect.poll(() => count(stackCalls, "call_stack_html")).toBe(1);
  const listed = (id: string) => page.locator(`ul.session-links li[data-session-id="${id}"]`);
  await expect(listed(ownSession).locator(".lines")).toHaveText("0");
  await expect(listed(otherSession)).toHaveCount(0);

  const treeHref = await page.getByRole("link", { name: "View Call Tree" }).getAttribute("href");
  const tree = await context.newPage();
  const treeCalls = rpcCalls(tree);
  await open(tree, treeHref!);
  await expect.poll(() => count(treeCalls, "call_tree_html")).toBe(1);

  const repls = await context.newPage();
  const replsCalls = rpcCalls(repls);
  await open(repls, "/repls");
  await expect.poll(() => count(replsCalls, "sessions_html")).toBe(1);
  const row = (id: string) => repls.locator(`table.sessions tr[data-session-id="${id}"]`);
  await expect(row(otherSession).locator(".lines")).toHaveText("0");

  // The REPL page of this pause's session: its variables are read from the program.
  const repl = await context.newPage();
  const replCalls = rpcCalls(repl);
  await open(repl, `/repl/${ownSession}`);
  await expect(repl.locator(".var-body")).toContainText("n");
  // Read as it hydrates, as its live stream opens, as its watch list loads.
  await expect.poll(() => count(replCalls, "variables_html")).toBeGreaterThanOrEqual(2);
  const variableReads = count(replCalls, "variables_html");

  // Entries in both sessions: each count moves on where it shows, from the event alone.
  for (let i = 0; i < 5; i++) await evalIn(request, otherSession, "n + 1");
  await expect(row(otherSession).locator(".lines")).toHaveText("5");
  await evalIn(request, ownSession, "n * 2");
  await evalIn(request, ownSession, "n * 3");
  await expect(listed(ownSession).locator(".lines")).toHaveText("2");
  await expect(row(ownSession).locator(".lines")).toHaveText("2");
  await expect(repl.locator(".transcript .entry")).toHaveCount(2);
  // The REPL page read its variables again for its own session's entries (one read each at
  // most, and one more if its opening's last read was still to come), not for the other's five.
  await expect.poll(() => count(replCalls, "variables_html")).toBeGreaterThan(variableReads);
  expect(count(replCalls, "variables_html")).toBeLessThanOrEqual(variableReads + 3);
  await repl.close();

  // The other pause goes on, closing its session: /repls reads that row alone (`session_row`),
  // not itself; the call stack and the call tree of this pause's process read nothing, for that
  // or for any entry.
  const listReads = count(replsCalls, "sessions_html");
  expect((await request.post(`/api/paused/${otherPause}/continue`, { data: { action: "continue" } })).status()).toBe(200);
  expect(await other.exited).toBe(0);
  await expect(row(otherSession).locator(".badge")).toHaveText("Closed");
  await expect(row(otherSession).locator(".lines")).toHaveText("5");
  expect(count(replsCalls, "session_row")).toBe(1);
  expect(count(replsCalls, "sessions_html")).toBe(listReads);
  expect(count(stackCalls, "call_stack_html")).toBe(1);
  expect(count(treeCalls, "call_tree_html")).toBe(1);

  // A second session on this pause: the call stack lists it, the call tree badges the call. The
  // frame the reader closed stays closed: only the header and sessions moved.
  const frame = page.locator("ol.frames > li.frame details").first();
  await expect(frame).toHaveAttribute("open", "");
  await frame.locator("summary").click();
  await expect(frame).not.toHaveAttribute("open");
  const second = await startSession(request, ownPause);
  await expect(listed(second).locator(".lines")).toHaveText("0");
  await expect(frame).not.toHaveAttribute("open");
  const [built, rendered] = await sessionsPart(page, context, `/callstack/${ownPause}`);
  expect(built).toContain(`data-session-id="${second}"`);
  expect(built).toBe(rendered);
  await expect(tree.locator(`.call-node a.badge.repl[href="/repl/${second}"]`)).toHaveCount(1);
  await expect(row(second)).toHaveCount(1);

  // Its own Continue: the call stack says so, the call tree shows the call's result.
  expect((await request.post(`/api/paused/${ownPause}/continue`, { data: { action: "continue" } })).status()).toBe(200);
  await expect(page.locator("header.page-header .badge")).toHaveText("Resumed");
  await expect(listed(ownSession).locator(".badge")).toHaveText("Closed");
  await expect(listed(second).locator(".badge")).toHaveText("Closed");
  const [closed, closedRendered] = await sessionsPart(page, context, `/callstack/${ownPause}`);
  expect(closed).toBe(closedRendered);
  await expect(tree.locator(".call-node .result")).toContainText("42");
  expect(await own.exited).toBe(0);
  const [stackReads, treeReads] = [count(stackCalls, "call_stack_html"), count(treeCalls, "call_tree_html")];

  // A third program pauses, a session on it takes entries and it goes on: /repls moves that
  // row's count on in place and reads the row alone as it closes; the call stack and the call
  // tree of the first read nothing.
  const third = runProgram("transcript.py");
  const thirdPause = await pauseOf(request, third.process.pid!);
  const thirdSession = await startSession(request, thirdPause);
  await expect(row(thirdSession)).toHaveCount(1);
  const replsReads = count(replsCalls, "sessions_html");
  for (const expr of ["1", "2", "3"]) await evalIn(request, thirdSession, expr);
  await expect(row(thirdSession).locator(".lines")).toHaveText("3");
  expect(count(replsCalls, "sessions_html")).toBe(replsReads);
  await request.post(`/api/paused/${thirdPause}/continue`, { data: { action: "continue" } });
  expect(await third.exited).toBe(0);
  await expect(row(thirdSession).locator(".badge")).toHaveText("Closed");
  expect(count(replsCalls, "sessions_html")).toBe(replsReads);
  expect(count(stackCalls, "call_stack_html")).toBe(stackReads);
  expect(count(treeCalls, "call_tree_html")).toBe(treeReads);
  // The frames were read once, as the stream opened, and never for a session or a Continue.
  expect(count(stackCalls, "call_stack_frames_html")).toBe(1);
});
