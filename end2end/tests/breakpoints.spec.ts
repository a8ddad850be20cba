import { expect, test } from "./fixtures";
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

test("/ lists every breakpoint once, a by-name one and one by id, under one add form whose fields follow the choice", async ({ page, request }) => {
  const byName = await request.post("/api/breakpoints", { data: { function_name: "one_list_target" } });
  expect(byName.ok()).toBe(true);
  const record = await (await request.post("/api/breakpoints", { data: { kind: "line", file: "/tmp/one_list.py", line: 3 } })).json();
  try {
    await open(page, "/");
    const panel = page.locator("section.breakpoints");
    await expect(panel.locator('tr[data-breakpoint="one_list_target"]')).toHaveCount(1);
    await expect(panel.locator(`form[data-record="${record.id}"]`)).toHaveCount(1);
    // One add form, and no "No breakpoints" above the breakpoints listed.
    await expect(panel.locator("form")).toHaveCount(1 + (await panel.locator("form.record:not(.add-record)").count()));
    await expect(panel.locator("form.add-record")).toHaveCount(1);
    await expect(panel.getByText("No breakpoints")).toHaveCount(0);

    // The add form's fields follow the choice: what a snapshot records shows only for one.
    const add = panel.locator("form.add-record");
    await add.locator('select[name="action"]').selectOption("pause");
    await expect(add.locator('input[name="max_hits"]')).toBeHidden();
    await expect(add.locator('input[name="where"]')).toBeVisible();
    await add.locator('select[name="action"]').selectOption("snapshot");
    await expect(add.locator('input[name="max_hits"]')).toBeVisible();
    await add.locator('select[name="kind"]').selectOption("line");
    await expect(add.locator('input[name="pattern"]')).toBeHidden();
    await add.locator('select[name="kind"]').selectOption("function");
    await expect(add.locator('input[name="pattern"]')).toBeVisible();
  } finally {
    await request.delete("/api/breakpoints/one_list_target");
    await request.delete(`/api/breakpoints/${record.id}`);
  }
  // Both leave the list live; the hint that there are none shows only when there are none of
  // either kind (other tests' programs may have registered functions on this shared server).
  const panel = page.locator("section.breakpoints");
  await expect(panel.locator('tr[data-breakpoint="one_list_target"]')).toHaveCount(0);
  await expect(panel.locator(`form[data-record]:not(.add-record)`)).toHaveCount(
    (await (await request.get("/api/breakpoints")).json()).items.length,
  );
  const left = await (await request.get("/api/breakpoints")).json();
  const none = left.items.length === 0 && left.breakpoints.length === 0;
  await expect(panel.getByText("No breakpoints")).toHaveCount(none ? 1 : 0);
});
