import { expect, test } from "@playwright/test";
import { open } from "./helpers";

test("the breakpoints panel adds a line breakpoint with options, edits it in place and removes it", async ({ page, request }) => {
  // The page refetches its panels when its live stream opens, which re-renders the add form:
  // wait for that refetch before filling the form in.
  let liveOpened = false;
  let refetchedAfter = false;
  page.on("response", (r) => {
    if (r.url().includes("/api/live")) liveOpened = true;
    else if (liveOpened && r.url().includes("/rpc/breakpoints_html")) refetchedAfter = true;
  });
  await open(page, "/");
  await expect.poll(() => refetchedAfter).toBe(true);
  const add = page.locator("form.add-record");
  await add.getByLabel("Kind").selectOption("line");
  await add.getByLabel("Where").fill("panel_check.py:7");
  await add.locator("input[name=condition]").fill("total > 100");
  await add.getByRole("button", { name: "Add" }).click();

  const record = page.locator("form.record[data-record]", { hasText: "panel_check.py:7" });
  await expect(record).toBeVisible();
  await expect(record.locator(".badge")).toHaveText("line");
  await expect(record.locator("input[name=condition]")).toHaveValue("total > 100");
  await expect(record.locator(".hit-count")).toHaveText("hits: 0");
  const id = await record.getAttribute("data-record");

  // Edited in place: a hit condition, and disabled; the server keeps both.
  await record.locator("input[name=hit_condition]").fill(">= 2");
  await record.locator("input[name=enabled]").uncheck();
  await record.getByRole("button", { name: "Save" }).click();
  await expect(page.locator(`form.record[data-record="${id}"]`)).toHaveClass(/disabled-record/);
  const stored = await (await request.get("/api/breakpoints")).json();
  const item = stored.items.find((b: { id: string }) => b.id === id);
  expect(item).toMatchObject({ kind: "line", line: 7, condition: "total > 100", hit_condition: ">= 2", enabled: false });

  // A refused option says why, and the record is unchanged.
  await page.locator(`form.record[data-record="${id}"] input[name=hit_condition]`).fill("every other");
  await page.locator(`form.record[data-record="${id}"]`).getByRole("button", { name: "Save" }).click();
  await expect(page.locator(".error").first()).toContainText("hit");
  const again = await (await request.get("/api/breakpoints")).json();
  expect(again.items.find((b: { id: string }) => b.id === id).hit_condition).toBe(">= 2");

  await page.locator(`form.record[data-record="${id}"]`).getByRole("button", { name: "Remove" }).click();
  await expect(page.locator(`form.record[data-record="${id}"]`)).toHaveCount(0);
  const after = await (await request.get("/api/breakpoints")).json();
  expect(after.items.find((b: { id: string }) => b.id === id)).toBeUndefined();
});
