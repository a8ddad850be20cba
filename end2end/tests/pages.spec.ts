import { expect, Page, test } from "./fixtures";
import { open, runProgram, screenshot } from "./helpers";

async function evalIn(page: Page, expr: string) {
  const input = page.locator("textarea.repl-input");
  const before = await page.locator(".transcript .entry").count();
  await input.fill(expr);
  await input.press("Enter");
  await expect(page.locator(".transcript .entry")).toHaveCount(before + 1);
  return page.locator(".transcript .entry").nth(before);
}

async function continueCard(page: Page, name: string) {
  await open(page, "/");
  const card = page.locator(".paused-card", { hasText: name }).first();
  await card.getByRole("button", { name: "Continue" }).click();
}

test("test_multiple_repl_sessions_same_breakpoint, test_repl_session_visible_in_call_tree, test_callstack_page_complete_stack_info, test_repl_page_links_to_callstack: a debugging session across every page", async ({ page }) => {
  const program = runProgram("shop.py");

  // checkout pauses first; let it run into its price calls.
  await open(page, "/");
  await expect(page.locator(".paused-card", { hasText: "checkout" })).toBeVisible();
  await continueCard(page, "checkout");

  // price(tea, 2) pauses: two REPL sessions on it, each with its own names.
  await open(page, "/");
  const card = page.locator(".paused-card", { hasText: "price" });
  await expect(card.locator(".args")).toContainText("'tea'");
  await card.getByRole("button", { name: "Open REPL" }).click();
  await expect(page).toHaveURL(/\/repl\/\d+-\d+\.\d{6}$/);
  const first = page.url();
  await expect(await evalIn(page, "item['name'], qty")).toContainText("('tea', 2)");
  await evalIn(page, "mine = 'first'");
  const pauseId = await page.locator("a", { hasText: "View Call Stack" }).getAttribute("href");
  const second = await page.request.post("/api/repl/start", { data: { pause_id: pauseId!.split("/").pop() } });
  const secondId = (await second.json()).session_id;
  await open(page, `/repl/${secondId}`);
  await expect(await evalIn(page, "mine")).toContainText("NameError");
  await expect(await evalIn(page, "[1, 2] * 2")).toContainText("[1, 2, 1, 2]");
  await page.locator(".transcript .entry").last().locator("a.object-link").click();
  await expect(page.locator("h1")).toHaveText("Stored value");
  await expect(page.locator(".value")).toHaveText("[1, 2, 1, 2]");
  await screenshot(page, "object");

  // The main page now links to the open REPL instead of opening another.
  await open(page, "/");
  await expect(page.locator(".paused-card", { hasText: "price" }).getByRole("link", { name: "Go to open REPL" })).toBeVisible();
  await continueCard(page, "price");
  await continueCard(page, "cake");

  // set_trace pauses in checkout's own frame: the call stack shows it with its source.
  await open(page, "/");
  const frameCard = page.locator(".paused-card", { hasText: "checkout" });
  await expect(frameCard).toBeVisible();
  await frameCard.getByRole("link", { name: "Call stack" }).click();
  await expect(page.locator("h1")).toContainText("Call Stack for checkout");
  const frames = page.locator(".frame");
  await expect(frames).toHaveCount(2);
  await expect(frames.nth(0)).toContainText("shop.py:16");
  await expect(frames.nth(0).locator(".line.current")).toContainText("breakroom.set_trace()");
  await expect(frames.nth(1).locator(".source")).toBeHidden();
  await frames.nth(1).locator("summary").click();
  await expect(frames.nth(1).locator(".source")).toBeVisible();
  await expect(frames.nth(1).locator(".line.current")).toContainText("print(\"total\"");
  await screenshot(page, "callstack");

  // The call tree: checkout with its two price calls under it; the REPL badges lead back.
  await page.getByRole("link", { name: "View Call Tree" }).click();
  await expect(page.locator("h1")).toContainText("Call tree of process");
  const nodes = page.locator(".call-node");
  await expect(nodes.filter({ has: page.locator(".fn-name", { hasText: /^price$/ }) })).toHaveCount(2);
  const prices = nodes.filter({ has: page.locator(".fn-name", { hasText: /^price$/ }) });
  const tea = prices.filter({ hasText: "'tea'" });
  await expect(tea).toHaveAttribute("style", "--depth: 1");
  await expect(tea.locator(".badge.repl")).toHaveCount(2);
  await expect(prices.filter({ hasText: "'cake'" }).locator(".badge.repl")).toHaveCount(0);
  await expect(nodes.first()).toContainText("checkout");
  await screenshot(page, "call-tree");
  await tea.locator(".badge.repl").first().click();
  await expect(page).toHaveURL(first);

  await page.getByRole("link", { name: "Call trees" }).click();
  await expect(page.locator("table.processes tbody tr")).not.toHaveCount(0);
  await screenshot(page, "processes");

  await continueCard(page, "checkout");
  expect(await program.exited).toBe(0);
  expect(program.output()).toContain("total 11");
});

test("test_repl_page_live_interaction: two tabs on one session see every entry and the close at once", async ({ browser }) => {
  const program = runProgram("greet.py", {}, ["tabs"]);
  const tabA = await browser.newPage();
  const tabB = await browser.newPage();
  await open(tabA, "/");
  await tabA.locator(".paused-card", { hasText: "greet" }).getByRole("button", { name: "Open REPL" }).click();
  await expect(tabA).toHaveURL(/\/repl\//);
  await open(tabB, tabA.url());

  // Tab B has a draft in progress: A's entries must not wipe it.
  await tabB.locator("textarea.repl-input").fill("len(name)");
  await expect(await evalIn(tabA, "name.upper()")).toContainText("'TABS'");
  await expect(tabB.locator(".transcript .entry")).toHaveCount(1);
  await expect(tabB.locator(".transcript .entry").first()).toContainText("'TABS'");
  await expect(tabB.locator("textarea.repl-input")).toHaveValue("len(name)");
  await tabB.locator("textarea.repl-input").press("Enter");
  await expect(tabA.locator(".transcript .entry")).toHaveCount(2);
  await expect(tabA.locator(".transcript .entry").nth(1)).toContainText("4");

  // ↑ walks back through the session's inputs, ↓ returns to the draft.
  const input = tabA.locator("textarea.repl-input");
  await input.fill("draft");
  await input.press("ArrowUp");
  await expect(input).toHaveValue("len(name)");
  await input.press("ArrowUp");
  await expect(input).toHaveValue("name.upper()");
  await input.press("ArrowDown");
  await input.press("ArrowDown");
  await expect(input).toHaveValue("draft");

  const page = await browser.newPage();
  await continueCard(page, "greet");
  for (const tab of [tabA, tabB]) {
    await expect(tab.getByText("Breakpoint resumed — session closed")).toBeVisible();
    await expect(tab.locator("textarea.repl-input")).toHaveCount(0);
  }
  expect(await program.exited).toBe(0);
  expect(program.output()).toContain("result 'hello tabs'");
});

test("skip and raise replace the call from its card", async ({ page }) => {
  const skipped = runProgram("greet.py", {}, ["skipped"]);
  await open(page, "/");
  let card = page.locator(".paused-card", { hasText: "'skipped'" });
  await card.locator("summary").click();
  await card.locator("input[name=value]").fill('"not run"');
  await card.getByRole("button", { name: "Skip" }).click();
  expect(await skipped.exited).toBe(0);
  expect(skipped.output()).toContain("result 'not run'");

  const raised = runProgram("greet.py", {}, ["raised"]);
  await open(page, "/");
  card = page.locator(".paused-card", { hasText: "'raised'" });
  await card.locator("summary").click();
  await card.locator("input[name=type]").fill("ValueError");
  await card.locator("input[name=message]").fill("refused in the debugger");
  // Another call pausing updates the list: the card being filled in is not touched (the same
  // element, its form open, what was typed and the focus where they were).
  await card.evaluate((element) => ((element as any).__same = true));
  const other = runProgram("greet.py", {}, ["bystander"]);
  await expect(page.locator(".paused-card", { hasText: "'bystander'" })).toBeVisible();
  await expect(card.locator("input[name=type]")).toBeVisible();
  await expect(card.locator("input[name=type]")).toHaveValue("ValueError");
  await expect(card.locator("input[name=message]")).toHaveValue("refused in the debugger");
  await expect(card.locator("input[name=message]")).toBeFocused();
  expect(await card.evaluate((element) => (element as any).__same)).toBe(true);
  await card.getByRole("button", { name: "Raise" }).click();
  expect(await raised.exited).toBe(0);
  await page.locator(".paused-card", { hasText: "'bystander'" }).getByRole("button", { name: "Continue" }).click();
  expect(await other.exited).toBe(0);
  expect(raised.output()).toContain("raised ValueError refused in the debugger");
});

test("a breakpoint's after-behaviour set on the main page pauses the call again after it returns", async ({ page }) => {
  const program = runProgram("greet.py", {}, ["after"]);
  await open(page, "/");
  const row = page.locator("tr[data-breakpoint=greet]");
  await row.locator("select").nth(1).selectOption("stop");
  await expect(row.locator("select").nth(1)).toHaveValue("stop");
  await continueCard(page, "'after'");
  await open(page, "/");
  const after = page.locator(".paused-card.reason-after");
  await expect(after).toContainText("→ 'hello after'");
  await expect(after.locator(".reason")).toHaveText("after the call returned");
  await screenshot(page, "paused-after");
  await after.getByRole("button", { name: "Continue" }).click();
  expect(await program.exited).toBe(0);
  await row.locator("select").nth(1).selectOption("go");
});

test("test_repls_index_lists_all_sessions, test_repls_index_search_works: the sessions index searches and filters, with the filters in the URL", async ({ page }) => {
  const program = runProgram("greet.py", {}, ["indexed"]);
  await open(page, "/");
  await page.locator(".paused-card", { hasText: "'indexed'" }).getByRole("button", { name: "Open REPL" }).click();
  await expect(page).toHaveURL(/\/repl\//);
  const sessionId = page.url().split("/").pop()!;
  await evalIn(page, "needle_value = 'haystack-42'");

  await open(page, "/repls");
  await expect(page.locator("h1")).toHaveText("REPL Sessions");
  await page.locator("input[name=search]").fill("haystack-42");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/search=haystack-42/);
  await expect(page.locator("table.sessions tbody tr")).toHaveCount(1);
  await expect(page.locator(`tr[data-session-id="${sessionId}"] .badge`)).toHaveText("Active");
  await screenshot(page, "repls");

  await page.locator("select[name=status]").selectOption("closed");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/status=closed/);
  await expect(page.getByText("No session matches these filters.")).toBeVisible();

  // The same URL, loaded fresh, shows the same result (a shareable search).
  await open(page, `/repls?search=haystack-42&status=active`);
  await expect(page.locator("table.sessions tbody tr")).toHaveCount(1);
  await page.locator(`tr[data-session-id="${sessionId}"]`).getByRole("link", { name: "Call stack" }).click();
  await expect(page.locator("h1")).toContainText("Call Stack for greet");

  await continueCard(page, "'indexed'");
  expect(await program.exited).toBe(0);
});

test("a closed session replays its transcript at the original pace, faster with the speed control", async ({ page }) => {
  const program = runProgram("greet.py", {}, ["replayed"]);
  await open(page, "/");
  await page.locator(".paused-card", { hasText: "'replayed'" }).getByRole("button", { name: "Open REPL" }).click();
  await expect(page).toHaveURL(/\/repl\//);
  const url = new URL(page.url()).pathname;
  for (const expr of ["a = 1", "a + 1", "a + 2"]) {
    await evalIn(page, expr);
    await page.waitForTimeout(400);
  }
  await continueCard(page, "'replayed'");
  expect(await program.exited).toBe(0);

  await open(page, url);
  const visible = page.locator(".transcript .entry:visible");
  await expect(visible).toHaveCount(3);
  await page.getByRole("button", { name: "▶ Replay" }).click();
  // Entries come back one by one: the first ones are on screen before the last.
  await expect(page.locator(".replay-progress")).toBeVisible();
  await expect.poll(() => visible.count()).toBeLessThan(3);
  await expect(page.locator(".replay-progress")).toContainText("of 3");
  await expect(visible).toHaveCount(3, { timeout: 10_000 });
  await expect(page.getByRole("button", { name: "▶ Replay" })).toBeVisible();

  // At 4x the same replay takes well under the recorded ~1.2 s of gaps, and Stop shows it all.
  await page.locator("select.replay-speed").selectOption("4");
  await page.getByRole("button", { name: "▶ Replay" }).click();
  await page.getByRole("button", { name: "■ Stop" }).click();
  await expect(visible).toHaveCount(3);
  await screenshot(page, "repl-replay");
});
