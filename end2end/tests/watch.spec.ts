import { expect, Page, test } from "./fixtures";
import { open, runProgram } from "./helpers";

/** The debug page on the program's pause in checkout(), with no watch expressions kept. */
async function debugPage(page: Page) {
  await open(page, "/");
  await page.evaluate(() => localStorage.removeItem("breakroom.watch"));
  const card = page.locator(".paused-card", { hasText: "checkout" }).first();
  await expect(card).toBeVisible();
  await card.getByRole("button", { name: "Open REPL" }).click();
  await expect(page).toHaveURL(/\/repl\//);
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
}

const watchRow = (page: Page, expression: string) =>
  page.locator(`.watch-panel .watch-row[data-expression="${expression}"]`);

async function addWatch(page: Page, expression: string) {
  await page.locator(".watch-panel .watch-input").fill(expression);
  await page.locator(".watch-panel .watch-input").press("Enter");
}

test("watch expressions are read again at each stop, refuse what would write, show program text as text and stay across reloads", async ({
  page,
}) => {
  const program = runProgram("stepping.py");
  await debugPage(page);
  const current = page.locator(".debug-source .line.current");
  await expect(current).toContainText("breakroom.set_trace()");

  await addWatch(page, "total + 100");
  await expect(watchRow(page, "total + 100")).toContainText("100");
  await addWatch(page, "prices.append(9)");
  await expect(watchRow(page, "prices.append(9)")).toContainText("is not read-only");
  await addWatch(page, "'<b>bold</b>'");
  await expect(watchRow(page, "'<b>bold</b>'")).toContainText("'<b>bold</b>'");
  await expect(page.locator(".watch-panel b")).toHaveCount(0);

  // Two steps: past the loop's head, then past the first add(); total is 3 now.
  await page.getByRole("button", { name: "Step over" }).click();
  await expect(current).toContainText("for price in prices:");
  await page.getByRole("button", { name: "Step over" }).click();
  await expect(current).toContainText("total = add(total, price)");
  await page.getByRole("button", { name: "Step over" }).click();
  await expect(current).toContainText("for price in prices:");
  await expect(watchRow(page, "total + 100")).toContainText("103");

  // Kept by this browser: a reload shows the same list, read again.
  await page.reload();
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  await expect(watchRow(page, "total + 100")).toContainText("103");
  await watchRow(page, "prices.append(9)").getByRole("button", { name: "Remove prices.append(9)" }).click();
  await expect(page.locator(".watch-panel .watch-row")).toHaveCount(2);

  // Nothing of it reached the transcript (only the three steps' marks), and the program's list
  // is unchanged.
  await expect(page.locator(".transcript .entry")).toHaveCount(3);
  await expect(page.locator(".transcript")).not.toContainText("total + 100");
  await expect(page.locator(".transcript")).not.toContainText("append");
  await page.getByRole("button", { name: "Continue" }).click();
  expect(await program.exited).toBe(0);
  expect(program.output()).toContain("total 7");
});
