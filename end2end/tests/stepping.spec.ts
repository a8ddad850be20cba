import { expect, Page, test } from "./fixtures";
import { open, runProgram, screenshot } from "./helpers";

/** Opens the REPL (the debug page) on the program's pause in checkout(). */
async function debugPage(page: Page) {
  await open(page, "/");
  const card = page.locator(".paused-card", { hasText: "checkout" }).first();
  await expect(card).toBeVisible();
  await expect(card).toContainText("stepping.py:16 in checkout — breakpoint()");
  await card.getByRole("button", { name: "Open REPL" }).click();
  await expect(page).toHaveURL(/\/repl\//);
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  return page.url();
}

const where = (page: Page) => page.locator(".debug-where");
const current = (page: Page) => page.locator(".debug-source .line.current");

test("the debug page steps over, into and out with the keys and the buttons, and follows each step in place", async ({
  page,
}) => {
  const program = runProgram("stepping.py");
  const url = await debugPage(page);
  await expect(current(page)).toContainText("breakroom.set_trace()");

  await page.keyboard.press("F10");
  await expect(where(page)).toContainText("stepping.py:17 in checkout — step over");
  await expect(current(page)).toContainText("for price in prices:");
  await page.getByRole("button", { name: "Step over" }).click();
  await expect(current(page)).toContainText("total = add(total, price)");
  expect(page.url()).toBe(url); // the same session, no navigation

  await page.keyboard.press("F11");
  await expect(where(page)).toContainText("stepping.py:10 in add — step into");
  await expect(page.locator(".debug-stack .stack-frame").first()).toContainText("add");
  await page.locator("textarea").fill("total, price");
  await page.locator("textarea").press("Enter");
  await expect(page.locator(".transcript .entry").last()).toContainText("(0, 3)");

  await page.keyboard.press("Shift+F11");
  await expect(where(page)).toContainText("in checkout — step out: returned");
  await page.locator("textarea").fill("__return__");
  await page.locator("textarea").press("Enter");
  await expect(page.locator(".transcript .entry").last()).toContainText("3");
  await expect(page.locator(".transcript .step-mark").first()).toContainText("→ stepping.py:17 in checkout");
  await screenshot(page, "debug");

  await page.getByRole("button", { name: "Continue" }).click();
  expect(await program.exited).toBe(0);
  expect(program.output()).toContain("total 7");
});

test("a frame selected on the debug page is where the REPL evaluates, and a gutter click sets a breakpoint", async ({
  page,
}) => {
  const program = runProgram("stepping.py");
  await debugPage(page);
  await expect(current(page)).toContainText("breakroom.set_trace()");
  // Each step lands before the next is sent (a key pressed while a step runs is refused).
  await page.getByRole("button", { name: "Step over" }).click();
  await expect(current(page)).toContainText("for price in prices:");
  await page.getByRole("button", { name: "Step over" }).click();
  await expect(current(page)).toContainText("total = add(total, price)");
  await page.keyboard.press("F11");
  await expect(where(page)).toContainText("in add");

  // The outer frame: its source and its locals.
  await page.locator(".debug-stack .stack-frame", { hasText: "checkout" }).locator("button").click();
  await expect(page.locator(".debug-stack .stack-frame.selected")).toContainText("checkout");
  await expect(current(page)).toContainText("total = add(total, price)");
  await page.locator("textarea").fill("prices");
  await page.locator("textarea").press("Enter");
  await expect(page.locator(".transcript .entry").last()).toContainText("[3, 4]");

  // A click on line 18's number sets a line breakpoint there.
  const line = page.locator(".debug-source .line", { hasText: "return total" });
  await line.locator(".lineno").click();
  await expect(line).toHaveClass(/\bbp\b/);
  const listed = await (await page.request.get("/api/breakpoints")).json();
  const added = listed.items.filter((b: { kind: string }) => b.kind === "line");
  expect(added.map((b: { line: number }) => b.line)).toEqual([19]);
  for (const b of added) await page.request.delete(`/api/breakpoints/${b.id}`);

  await page.keyboard.press("F5");
  expect(await program.exited).toBe(0);
});

test("Step back on the debug page returns to the state before the last step, in the same session", async ({ page }) => {
  const program = runProgram("stepping.py", { STEP_CHECKPOINTS: "1" });
  const url = await debugPage(page);
  await expect(current(page)).toContainText("breakroom.set_trace()");
  await expect(page.getByRole("button", { name: "Step back" })).toHaveCount(0); // no checkpoint yet
  await page.keyboard.press("F10");
  await expect(current(page)).toContainText("for price in prices:");
  await page.keyboard.press("F10");
  await expect(current(page)).toContainText("total = add(total, price)");
  await page.keyboard.press("F10");
  await expect(current(page)).toContainText("for price in prices:");
  await page.locator("textarea").fill("total");
  await page.locator("textarea").press("Enter");
  await expect(page.locator(".transcript .entry").last()).toContainText("3");

  await page.getByRole("button", { name: "Step back" }).click();
  await expect(current(page)).toContainText("total = add(total, price)");
  await expect(page.locator(".transcript .step-mark").last()).toContainText("← back to stepping.py:18 in checkout");
  expect(page.url()).toBe(url);
  await page.locator("textarea").fill("total");
  await page.locator("textarea").press("Enter");
  await expect(page.locator(".transcript .entry").last()).toContainText("0");

  await page.keyboard.press("F5");
  await expect.poll(() => program.output()).toContain("total 7");
  // Its snapshots are held until the program's record is stopped.
  const listed = await (await page.request.get("/api/processes")).json();
  for (const p of listed.processes.filter((p: object) => JSON.stringify(p).includes("stepping.py"))) {
    await page.request.post(`/api/processes/${p.id}/stop`);
  }
});
