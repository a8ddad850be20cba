import { expect, test } from "./fixtures";
import { open, runProgram, screenshot } from "./helpers";

// Rich values (issue 52): tables and images are the page's own escaped markup; HTML a program
// made runs nothing: it is shown in a frame with an empty sandbox, and no dialog opens.

test("a DataFrame shows as a table, a figure as an image, and a hostile _repr_html_ runs nothing", async ({ page }) => {
  const program = runProgram("rich_values.py");
  const dialogs: string[] = [];
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });

  await open(page, "/");
  const card = page.locator(".paused-card", { hasText: "explore" });
  // The program imports pandas and matplotlib first: seconds on a busy machine.
  await expect(card).toBeVisible({ timeout: 60_000 });
  await card.getByRole("button", { name: "Open REPL" }).click();
  await expect(page).toHaveURL(/\/repl\/\d+-\d+\.\d{6}$/);
  const input = page.locator("textarea.repl-input");
  const run = async (expr: string, entry: number) => {
    await input.fill(expr);
    await input.press("Enter");
    const row = page.locator(".transcript .entry").nth(entry);
    await expect(row.locator(".input")).toContainText(expr);
    return row;
  };

  const table = (await run("df", 0)).locator(".rich-table");
  await expect(table.locator(".table-shape")).toHaveText("5000 rows × 2 columns · the first 100 shown");
  await expect(table.locator("tbody tr")).toHaveCount(100);
  await expect(table.locator("tbody tr").nth(42).locator("td")).toHaveText(["42", "row42"]);

  const image = (await run("fig", 1)).locator("img.rich-image");
  await expect(image).toBeVisible();
  // Decoded by the browser: a real picture, not a broken one.
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(512);

  const frame = (await run("hostile", 2)).locator("iframe.rich-html");
  await expect(frame).toHaveAttribute("sandbox", "");
  await expect(page.frameLocator("iframe.rich-html").locator("b.inside")).toHaveText("inside the frame");
  await screenshot(page, "repl-rich");

  expect(dialogs).toEqual([]);
  await expect(page).toHaveTitle("REPL · explore — Breakroom");

  // The variables panel offers a view of what has a richer form than its repr.
  const view = page.locator('.var[data-name="fig"] a.var-view');
  await expect(view).toBeVisible();
  const viewUrl = await view.getAttribute("href");
  await expect(page.locator('.var[data-name="hostile"] a.var-view')).toBeVisible();

  // Every row, a page at a time, sorted in the program: the table's own page.
  await page.locator(".transcript .entry").nth(0).getByRole("link", { name: "all 5000 rows, sortable →" }).click();
  await expect(page.locator(".table-shape")).toHaveText("rows 1–100 of 5000");
  const tablePage = page.url();
  await page.getByRole("link", { name: "next →" }).click();
  await expect(page.locator(".table-shape")).toHaveText("rows 101–200 of 5000");
  await expect(page.locator("tbody tr").first().locator("td")).toHaveText(["100", "row100"]);
  await page.getByRole("link", { name: "n", exact: true }).click();
  await expect(page.locator(".table-shape")).toHaveText("rows 1–100 of 5000 · sorted by n");
  await page.getByRole("link", { name: "n", exact: true }).click();
  await expect(page.locator(".table-shape")).toHaveText("rows 1–100 of 5000 · sorted by n, largest first");
  await expect(page.locator("tbody tr").first().locator("td")).toHaveText(["4999", "row4999"]);

  await page.goto(viewUrl!);
  await expect(page.locator("h1")).toHaveText("fig");
  await expect.poll(() => page.locator("img.rich-image").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(512);

  await open(page, "/");
  await page.locator(".paused-card", { hasText: "explore" }).getByRole("button", { name: "Continue" }).click();
  expect(await program.exited).toBe(0);
  // The object went with the pause: its page says so.
  await page.goto(tablePage);
  await expect(page.locator("h1")).toHaveText("Table gone");
});
