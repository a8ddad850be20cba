import { expect, test } from "./fixtures";
import { open } from "./helpers";

test("a process launched from /processes shows its output live, side by side or interleaved, and its crash banner", async ({ page }) => {
  await open(page, "/processes");
  await expect(page).toHaveTitle(/^Processes — Breakroom$/);
  // Prints to both streams, waits so that the page is open before the rest arrives, then crashes.
  const program =
    "import sys, time; print('out first'); print('err first', file=sys.stderr); " +
    "time.sleep(1.5); print('out second'); raise ValueError('boom 42')";
  await page.getByLabel("Command").fill(`python3 -c "${program}"`);
  // Named for this run: the list keeps an earlier run's crasher (`--repeat-each`).
  const name = `crasher-${Date.now()}`;
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/process\/[0-9a-f]+$/);
  await expect(page.locator("h1")).toHaveText(name);

  // The streams are kept apart, and the later line arrives without a reload.
  await expect(page.locator("pre.stream.stdout")).toContainText("out first");
  await expect(page.locator("pre.stream.stderr")).toContainText("err first");
  await expect(page.locator("pre.stream.stdout")).toContainText("out second");
  await expect(page.locator("pre.stream.stdout")).not.toContainText("err first");

  // The crash: the banner names the exception line of the traceback.
  await expect(page.locator(".exit-banner.crash")).toContainText("ValueError: boom 42");
  await expect(page.locator(".process-header .badge.process-status")).toHaveText("crashed");
  await expect(page.locator("pre.stream.stderr")).toContainText("Traceback (most recent call last)");
  await expect(page).toHaveTitle(`Process · ${name} — Breakroom`);

  // Interleaved: one column, in the order the lines were captured (within a stream, the order
  // printed; across the two pipes, the order they were read).
  await page.getByRole("link", { name: "Interleave the streams" }).click();
  const column = page.locator("pre.stream.interleaved");
  await expect(column).toContainText("err first");
  const texts = await column.locator(".line").allTextContents();
  expect(texts.indexOf("out first")).toBeGreaterThanOrEqual(0);
  expect(texts.indexOf("out first")).toBeLessThan(texts.indexOf("out second"));
  await expect(page.locator("pre.stream.stdout")).toHaveCount(0);

  // The list marks it crashed.
  await page.locator(".topbar nav").getByRole("link", { name: "Processes" }).click();
  const row = page.locator("tr.process-row", { hasText: name });
  await expect(row).toHaveClass(/crashed/);
  await expect(row.locator(".reason")).toContainText("ValueError: boom 42");
});

test("Stop ends a running process and a bad command is refused with its reason", async ({ page }) => {
  await open(page, "/processes");
  await page.getByLabel("Command").fill("no-such-program-here --flag");
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page.locator(".launch-error")).toContainText("no-such-program-here");

  await page.getByLabel("Command").fill(`python3 -c "import time; print('up', flush=True); time.sleep(60)"`);
  await page.getByLabel("Name").fill("sleeper");
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/process\/[0-9a-f]+$/);
  await expect(page.locator("h1")).toHaveText("sleeper");
  await expect(page.locator("pre.stream.stdout")).toContainText("up");
  await expect(page.locator(".process-header .badge.process-status")).toHaveText("running");
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(page.locator(".exit-banner")).toBeVisible();
  await expect(page.locator(".process-header .badge.process-status")).toHaveText("killed");
  await expect(page.getByRole("button", { name: "Stop" })).toHaveCount(0);
});

test("a launched program's breakpoint() pauses it; its card and its page link to each other", async ({ page }) => {
  await open(page, "/processes");
  await page.getByLabel("Command").fill(`python3 -c "answer = 41; breakpoint(); print('after', answer + 1)"`);
  await page.getByLabel("Name").fill("pauser");
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/process\/[0-9a-f]+$/);
  const processUrl = page.url();
  await expect(page.locator("h1")).toHaveText("pauser");
  await expect(page.locator(".process-header .badge.process-status")).toHaveText("paused");
  await expect(page.locator(".process-pauses .badge.paused")).toBeVisible();

  await page.locator(".topbar nav").getByRole("link", { name: "Paused" }).click();
  const card = page.locator(".paused-card").filter({ has: page.locator(`a.process-link[href="${new URL(processUrl).pathname}"]`) });
  await expect(card).toBeVisible();
  await card.getByRole("button", { name: "Continue" }).click();
  await expect(card).toHaveCount(0);

  await page.goto(processUrl);
  await expect(page.locator(".exit-banner.clean")).toContainText("exit code 0");
  await expect(page.locator("pre.stream.stdout")).toContainText("after 42");
});

test("output keeps its colours, and a finished process's countdown to leaving the list ticks", async ({ page }) => {
  await open(page, "/processes");
  await page.getByLabel("Command").fill(`python3 -c "print('\\x1b[31mred alert\\x1b[0m plain')"`);
  const name = `painter-${Date.now()}`;
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/process\/[0-9a-f]+$/);
  await expect(page.locator(".process-header .badge.process-status")).toHaveText("exited");
  const line = page.locator("pre.stream.stdout .line").first();
  await expect(line).toHaveText("red alert plain");
  await expect(line.locator("span[style*='color']")).toHaveText("red alert");

  await page.locator(".topbar nav").getByRole("link", { name: "Processes" }).click();
  const left = page.locator("tr.process-row", { hasText: name }).locator(".leaves .left");
  await expect(left).toHaveText(/^\d+ s$/);
  const first = (await left.textContent()) ?? "";
  // The server sends nothing for a finished process until it leaves: the page counts down itself.
  await expect(left).not.toHaveText(first, { timeout: 5000 });
});

test("the process list does not refetch while a process prints", async ({ page, request }) => {
  const program = "import time\nfor i in range(600):\n    print(f'line {i}', flush=True)\n    time.sleep(0.05)";
  const name = `printer-${Date.now()}`;
  const launched = await request.post("/api/processes", { data: { command: ["python3", "-u", "-c", program], name } });
  expect(launched.status()).toBe(200);
  const { id } = await launched.json();
  const record = async () => await (await request.get(`/api/processes/${id}`)).json();
  try {
    // The client Breakroom ships calls in from the program and its record changes (a change the
    // list shows): after that, the list has nothing to refetch while the program only prints.
    await expect.poll(async () => (await record()).process_key ?? null).not.toBeNull();
    // The list refetches once when its live stream opens (what changed since the server rendered it).
    const opened = page.waitForResponse((r) => r.url().includes("/rpc/tracked_processes_html"));
    await open(page, "/processes");
    await opened;
    const fetched: string[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname.startsWith("/rpc/")) fetched.push(new URL(r.url()).pathname);
    });
    await expect(page.locator("tr.process-row", { hasText: name })).toBeVisible();
    const before = (await record()).stdout.lines;
    await expect.poll(async () => (await record()).stdout.lines).toBeGreaterThan(before + 20);
    expect(fetched).toEqual([]);
  } finally {
    await request.post(`/api/processes/${id}/stop`);
  }
});
