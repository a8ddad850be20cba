import { expect, test } from "./fixtures";
import { open, runProgram, screenshot } from "./helpers";

/** Pauses sensors.py's call and opens a REPL on it. */
async function openRepl(page: import("@playwright/test").Page) {
  const program = runProgram("sensors.py");
  await open(page, "/");
  const card = page.locator(".paused-card", { hasText: "inspect_me" });
  await card.getByRole("button", { name: "Open REPL" }).click();
  await expect(page).toHaveURL(/\/repl\/\d+-\d+\.\d{6}$/);
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  return { program, input: page.locator("textarea.repl-input") };
}

test("Tab completes from the paused frame: one match inserts, several open a list walked with arrows", async ({ page }) => {
  const { program, input } = await openRepl(page);

  await input.fill("sensor.rea");
  await input.press("Tab");
  await expect(input).toHaveValue("sensor.reading");
  await expect(page.locator(".completions")).toBeHidden();

  // Several matches: a list with each match's type; a property is listed (its getter raises if run).
  await input.fill("sensor.");
  await input.press("Tab");
  const list = page.locator(".completions .completion");
  await expect(list.filter({ hasText: "calibrate" })).toContainText("property");
  await expect(list.filter({ hasText: "reading" })).toBeVisible();
  const texts = await list.locator(".completion-text").allTextContents();
  await expect(list.nth(0)).toHaveClass(/selected/);
  await input.press("ArrowDown");
  await expect(list.nth(1)).toHaveClass(/selected/);
  await screenshot(page, "repl-completions");
  await input.press("Enter");
  await expect(input).toHaveValue(`sensor.${texts[1]}`);
  await expect(page.locator(".completions")).toBeHidden();

  // Ctrl+Space opens the list too; Escape closes it and leaves the text alone.
  await input.fill("settings['");
  await input.press("Control+ ");
  await expect(list).toHaveCount(2);
  await input.press("Escape");
  await expect(page.locator(".completions")).toBeHidden();
  await expect(input).toHaveValue("settings['");

  // Completion ran nothing: the transcript is still empty, and the property's getter never ran.
  await expect(page.locator(".transcript .entry")).toHaveCount(0);
  await input.fill("sensor.reading + 1");
  await input.press("Enter");
  await expect(page.locator(".transcript .entry").nth(0)).toContainText("22");
  program.process.kill();
});

test("the variables panel lists the frame, refreshes after an eval and expands one level", async ({ page }) => {
  const { program, input } = await openRepl(page);
  const panel = page.locator(".variables-panel");
  const row = (name: string) => panel.locator(`.var-list > .var[data-name="${name}"]`);
  await expect(row("settings")).toContainText("dict");
  await expect(row("settings").locator("> .var-repr")).toHaveText("{'mode': 'fast', 'level': 3}");
  await expect(row("sensor")).toContainText("Sensor");
  // A call argument links to the value stored at the call.
  await expect(row("settings").locator("> a.object-link")).toHaveAttribute("href", /^\/object\/[0-9a-f]{128}$/);

  await input.fill("found = [1, 2, 3]");
  await input.press("Enter");
  await expect(row("found")).toContainText("[1, 2, 3]");

  await row("sensor").locator("> .var-toggle").click();
  const children = row("sensor").locator("> .var-children > .var");
  await expect(children.filter({ hasText: "reading" })).toContainText("21");
  await expect(children.filter({ hasText: "calibrate" })).toContainText("not evaluated");
  await screenshot(page, "repl-variables");
  await row("sensor").locator("> .var-toggle").click();
  await expect(row("sensor").locator("> .var-children")).toBeHidden();
  program.process.kill();
});
