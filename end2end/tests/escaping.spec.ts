import { expect, test } from "./fixtures";
import { open } from "./helpers";

// Everything a program, a user or an agent sends is shown as text. A page that ran it as markup
// could run code in every debugged process, so these open real pages with hostile names.

test("a process named with markup shows that name as text: no script runs from its page's title", async ({ page }) => {
  const name = `</title><script>window.__pwned = 1; alert(3)</script>"'&`;
  const launched = await page.request.post("/api/processes", {
    data: { command: ["python3", "-c", "import time; time.sleep(30)"], name },
  });
  expect(launched.ok()).toBeTruthy();
  const { id } = await launched.json();

  const dialogs: string[] = [];
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  try {
    // Loaded from the server (its SSR HTML), then reached again by the client-side router.
    await open(page, `/process/${id}`);
    await expect(page.locator("h1")).toHaveText(name);
    await expect(page).toHaveTitle(`Process · ${name} — Breakroom`);
    await page.locator(".topbar nav").getByRole("link", { name: "Processes" }).click();
    await page.locator("tr.process-row", { hasText: "</title>" }).getByRole("link").first().click();
    await expect(page.locator("h1")).toHaveText(name);
    await expect(page).toHaveTitle(`Process · ${name} — Breakroom`);

    expect(dialogs).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("head script:not([src]):not([type])", { hasText: "__pwned" }).count()).toBe(0);
  } finally {
    await page.request.post(`/api/processes/${id}/stop`);
  }
});
