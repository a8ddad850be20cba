import { expect, test } from "./fixtures";
import { open, runProgram, screenshot } from "./helpers";

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
