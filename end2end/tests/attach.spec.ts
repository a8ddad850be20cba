import { spawn } from "node:child_process";
import * as path from "node:path";
import { expect, test } from "./fixtures";
import { open } from "./helpers";

test("a plain Python program is listed on /processes, attached with one click, and shown as attached", async ({ page }) => {
  // Started without Breakroom: no client on its path, no BREAKROOM_* variables. Its argv is
  // markup, which the table must show as text.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("BREAKROOM") && !k.startsWith("PYTHON")));
  const evil = "<img src=x onerror=window.__attached_xss=1>";
  const child = spawn("python3", [path.join(__dirname, "..", "programs", "plain_loop.py"), evil], { env, stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
    await open(page, "/processes");
    const row = page.locator(`table.processes.local tr[data-pid="${child.pid}"]`);
    await expect(row).toContainText(evil);
    await expect(row.locator("img")).toHaveCount(0);
    await row.getByRole("button", { name: "Attach" }).click();
    await expect(page).toHaveURL(/\/process\/[0-9a-f]+$/);
    await expect(page.locator(".process-header .badge.role.attached")).toHaveText("attached");
    await expect(page.locator(".process-header .badge.process-status")).toHaveText("running");
    expect(await page.evaluate(() => (window as any).__attached_xss)).toBeUndefined();

    // Back on the list: it is a debugged process now, no longer offered for attach.
    await page.locator(".topbar nav").getByRole("link", { name: "Processes" }).click();
    await expect(page.locator(`table.processes.local tr[data-pid="${child.pid}"]`).getByRole("link", { name: "debugged" })).toBeVisible();
  } finally {
    child.kill();
  }
});

test("a launched program's Python child is listed under it and links back to it", async ({ page }) => {
  await open(page, "/processes");
  const program =
    "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(20)']); time.sleep(20)";
  await page.getByLabel("Command").fill(`python3 -c "${program}"`);
  await page.getByLabel("Name").fill("family-head");
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/process\/[0-9a-f]+$/);
  const child = page.locator(".process-family ul.children a");
  await expect(child).toHaveCount(1, { timeout: 10000 });
  await child.click();
  await expect(page.locator(".process-family")).toContainText("started by");
  await expect(page.locator(".process-family a")).toHaveText("family-head");

  // The list shows it indented right under its parent.
  await page.locator(".topbar nav").getByRole("link", { name: "Processes" }).click();
  const rows = page.locator("table.tracked tr.process-row");
  // The list arrives after the page (its server function also looks for local Python processes).
  await expect(rows.filter({ hasText: "family-head" })).toHaveCount(1);
  const names = await rows.locator("td.tree-name").allTextContents();
  const head = names.findIndex((n) => n.includes("family-head"));
  expect(head).toBeGreaterThanOrEqual(0);
  expect(names[head + 1]).toContain("└");
  await page.goto(page.url()); // leave before the processes end
  await page.getByRole("link", { name: "family-head" }).click();
  await page.getByRole("button", { name: "Stop" }).click();
});
