import { expect, test } from "./fixtures";
import { open, runProgram, screenshot } from "./helpers";

test("test_full_repl_flow_start_eval_close, test_repl_page_shows_read_only_transcript_when_closed: pause a Python call, evaluate in its REPL, continue it", async ({ page }) => {
  const program = runProgram("compute.py");

  await open(page, "/");
  const card = page.locator(".paused-card", { hasText: "compute" });
  await expect(card).toBeVisible();
  await expect(card.locator(".args")).toHaveText("6, 7");
  await expect(card.locator(".pid")).toHaveText(String(program.process.pid));
  await screenshot(page, "paused");

  await card.getByRole("button", { name: "Open REPL" }).click();
  await expect(page).toHaveURL(/\/repl\/\d+-\d+\.\d{6}$/);
  const sessionUrl = page.url();
  const input = page.locator("textarea.repl-input");

  const evalAndExpect = async (expr: string, shown: string, entry: number) => {
    await input.fill(expr);
    await input.press("Enter");
    const row = page.locator(".transcript .entry").nth(entry);
    await expect(row.locator(".input")).toContainText(expr);
    await expect(row).toContainText(shown);
  };
  await evalAndExpect("a * b", "42", 0);
  await evalAndExpect("print('hi')", "hi", 1);
  await evalAndExpect("x = 5", "x = 5", 2);
  await evalAndExpect("x + 1", "6", 3);
  await expect(page.locator(".transcript .entry").nth(1).locator(".output")).toHaveCount(0);

  // Shift+Enter adds a line instead of running.
  await input.fill("y = 2");
  await input.press("Shift+Enter");
  await input.type("y * 21");
  await expect(page.locator(".transcript .entry")).toHaveCount(4);
  await input.press("Enter");
  await expect(page.locator(".transcript .entry").nth(4)).toContainText("42");
  await screenshot(page, "repl-active");

  await open(page, "/");
  await page.locator(".paused-card", { hasText: "compute" }).getByRole("button", { name: "Continue" }).click();
  expect(await program.exited).toBe(0);
  expect(program.output()).toContain("43");
  await expect(page.locator(".paused-card", { hasText: "compute" })).toHaveCount(0);

  await open(page, sessionUrl);
  await expect(page.getByText("Breakpoint resumed — session closed")).toBeVisible();
  await expect(page.locator("textarea.repl-input")).toHaveCount(0);
  await expect(page.locator(".transcript .entry")).toHaveCount(5);
  await expect(page.locator(".badge")).toHaveText("Closed");
  await screenshot(page, "repl-closed");
});
