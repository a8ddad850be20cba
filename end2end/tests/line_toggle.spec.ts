import { expect, test } from "./fixtures";
import { open, runProgram } from "./helpers";

test("a click on a source line's number in the call stack sets a line breakpoint that pauses the running program there", async ({
  page,
}) => {
  const program = runProgram("lines.py");
  await open(page, "/");
  const card = page.locator(".paused-card", { hasText: "main" }).first();
  await expect(card).toBeVisible();
  const stackLink = await card.locator("a", { hasText: "Call Stack" }).getAttribute("href");
  await open(page, stackLink!);

  // `doubled = i * 2` is shown in main's frame, around the set_trace line.
  const line = page.locator(".frame").first().locator(".source .line", { hasText: "doubled = i * 2" });
  await expect(line).toBeVisible();
  await line.locator(".lineno").click();
  await expect(line).toHaveClass(/\bbp\b/);
  const listed = await (await page.request.get("/api/breakpoints")).json();
  const added = listed.items.filter((b: { kind: string }) => b.kind === "line");
  expect(added).toHaveLength(1);
  expect(added[0].file).toMatch(/lines\.py$/);
  expect(added[0].line).toBe(7);

  // Continue: the program stops at that line, in step(0).
  await open(page, "/");
  await page.locator(".paused-card", { hasText: "main" }).getByRole("button", { name: "Continue" }).click();
  const atLine = page.locator(".paused-card", { hasText: "step" }).first();
  await expect(atLine).toBeVisible();

  // A second click on the same line (in the new pause's stack) removes it; the program ends.
  await open(page, (await atLine.locator("a", { hasText: "Call Stack" }).getAttribute("href"))!);
  const again = page.locator(".frame").first().locator(".source .line.current");
  await expect(again).toHaveClass(/\bbp\b/);
  await again.locator(".lineno").click();
  await expect(again).not.toHaveClass(/\bbp\b/);
  expect((await (await page.request.get("/api/breakpoints")).json()).items).toHaveLength(0);
  await open(page, "/");
  await page.locator(".paused-card", { hasText: "step" }).getByRole("button", { name: "Continue" }).click();
  expect(await program.exited).toBe(0);
  expect(program.output()).toContain("steps [0, 2, 4]");
});
