import * as path from "node:path";
import { expect, Page, test } from "./fixtures";
import { open, runProgram } from "./helpers";

// Issue 45: the debug page gives the source the main column's width (a long current line
// scrolls sideways in its box, never cut or wrapped), and the stack and variables a sidebar
// beside it for the window's height, from 1024 px wide up.

const images = path.join(__dirname, "..", "..", "docs", "src", "images");
const LONG = 'summary = describe(order_id, customer_name, "12 Analytical Row, London"';

/** What the page shows at this width, measured in the browser. */
function measure(page: Page) {
  return page.evaluate(() => {
    const box = document.querySelector(".debug-source") as HTMLElement;
    const line = box.querySelector(".line.current") as HTMLElement;
    const side = document.querySelector(".repl-sidebar") as HTMLElement;
    const main = document.querySelector(".repl-head") as HTMLElement;
    const rect = (e: Element) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height };
    };
    // The line's text, from its first character to its last: where its end is drawn.
    const text = document.createRange();
    text.selectNodeContents(line);
    const lineHeight = parseFloat(getComputedStyle(line).lineHeight);
    return {
      box: { ...rect(box), clientWidth: box.clientWidth, scrollWidth: box.scrollWidth, overflowX: getComputedStyle(box).overflowX },
      line: { ...rect(line), scrollWidth: line.scrollWidth, textRight: text.getBoundingClientRect().right, lineHeight },
      side: rect(side),
      main: rect(main),
      stackInSide: !!side.querySelector(".debug-stack .stack-frame"),
      varsInSide: !!side.querySelector(".variables-panel .var"),
      pageWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      innerHeight: window.innerHeight,
    };
  });
}

test("the debug page's source shows a long current line whole, beside a full-height sidebar, at 1024, 1400 and 1920 px", async ({
  page,
}) => {
  const program = runProgram("long_line.py");
  await page.setViewportSize({ width: 1400, height: 900 });
  await open(page, "/");
  const card = page.locator(".paused-card", { hasText: "ship" }).first();
  await expect(card).toContainText("long_line.py:12 in ship");
  await card.getByRole("button", { name: "Open REPL" }).click();
  await expect(page).toHaveURL(/\/repl\//);
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  const current = page.locator(".debug-source .line.current");
  await expect(current).toContainText("breakroom.set_trace()");
  await page.getByRole("button", { name: "Step over" }).click();
  await expect(current).toContainText(LONG);
  await expect(page.locator(".debug-where")).toContainText("long_line.py:13 in ship — step over");
  // Something in the transcript, and the variables listed, for the pictures.
  await page.locator("textarea").fill("line_items");
  await page.locator("textarea").press("Enter");
  await expect(page.locator(".transcript .entry").last()).toContainText("['tea', 'scones', 'jam']");
  await expect(page.locator('.variables-panel .var[data-name="customer_name"]')).toContainText("Ada Lovelace");

  for (const [width, height] of [
    [1024, 768],
    [1400, 900],
    [1920, 1080],
  ]) {
    await page.setViewportSize({ width, height });
    await expect.poll(() => page.evaluate(() => window.innerWidth)).toBe(width);
    // From the page's top (each answer scrolls the input box into view), as one opens it.
    await page.evaluate(() => window.scrollTo(0, 0));
    const m = await measure(page);
    const at = `at ${width} px: ${JSON.stringify(m)}`;

    // The current line: one line high, and all of it inside the box or reachable by scrolling it.
    expect(m.line.height, at).toBeLessThan(m.line.lineHeight * 1.5);
    if (m.line.scrollWidth > m.box.clientWidth) {
      expect(m.box.scrollWidth, at).toBeGreaterThan(m.box.clientWidth);
      expect(["auto", "scroll"], at).toContain(m.box.overflowX);
      expect(m.line.textRight - m.box.left, at).toBeLessThanOrEqual(m.box.scrollWidth + 1);
    } else {
      expect(m.line.textRight, at).toBeLessThanOrEqual(m.box.left + m.box.clientWidth + 1);
    }
    // The source box takes the main column's width.
    expect(m.box.width, at).toBeGreaterThan(m.main.width * 0.9);

    // The sidebar: beside the main column, holding the stack and the variables, as tall as the window.
    expect(m.stackInSide && m.varsInSide, at).toBe(true);
    expect(m.side.left, at).toBeGreaterThanOrEqual(m.main.right - 1);
    expect(m.side.top, at).toBeLessThan(m.main.bottom);
    expect(m.side.height, at).toBeGreaterThan(m.innerHeight * 0.9);

    // No sideways scrolling of the page itself.
    expect(m.pageWidth, at).toBeLessThanOrEqual(m.innerWidth);

    await page.screenshot({ path: path.join(images, `debug-page-${width}.png`) });
  }

  // Scrolled sideways, the end of the long line shows in its box.
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect.poll(() => page.evaluate(() => window.innerWidth)).toBe(1024);
  await page.locator(".debug-source").evaluate((box) => (box.scrollLeft = box.scrollWidth));
  const end = await page.evaluate(() => {
    const box = document.querySelector(".debug-source")!.getBoundingClientRect();
    const text = document.createRange();
    text.selectNodeContents(document.querySelector(".debug-source .line.current")!);
    return { boxRight: box.right, textRight: text.getBoundingClientRect().right };
  });
  expect(end.textRight).toBeLessThanOrEqual(end.boxRight + 1);

  await page.getByRole("button", { name: "Continue" }).click();
  expect(await program.exited).toBe(0);
  expect(program.output()).toContain("1843 Ada Lovelace 3 items GBP 0.2");
});
