import { expect, Page, test } from "./fixtures";
import { open, runProgram } from "./helpers";

/** Every .wasm and .js response of the page, in order, and how many documents it loaded. */
function watchDownloads(page: Page) {
  const files: string[] = [];
  let documents = 0;
  page.on("request", (request) => {
    if (request.resourceType() === "document") documents++;
  });
  page.on("response", (response) => {
    const name = new URL(response.url()).pathname;
    if (/\.(wasm|js)$/.test(name)) files.push(name);
  });
  return { files, documents: () => documents };
}

test("client-side navigation across every page: each page's chunk is fetched once, when the page is first shown, and live updates keep arriving", async ({ page }) => {
  const downloads = watchDownloads(page);
  // A split build (cargo leptos build --split, as scripts/test.sh builds it) has JS glue that
  // loads chunks. (Not the chunk manifest: an unsplit build leaves an old one in place.)
  const split = (await (await page.request.get("/pkg/breakroom.js")).text()).includes("__wasm_split");
  if (!split) test.info().annotations.push({ type: "note", description: "unsplit build: chunk checks skipped" });

  const first = runProgram("greet.py", {}, ["navigated"]);
  await open(page, "/");
  await expect(page).toHaveTitle("Paused calls — Breakroom");
  const card = page.locator(".paused-card", { hasText: "'navigated'" });
  await expect(card).toBeVisible();
  const initial = [...downloads.files];
  // Survives only as long as the document does: a full page load would lose it.
  await page.evaluate(() => ((window as any).__sameDocument = true));

  // Runs a client-side step; returns the .wasm/.js files it fetched.
  const step = async (action: () => Promise<void>) => {
    const before = downloads.files.length;
    await action();
    return downloads.files.slice(before);
  };
  const firstVisit = (name: string, fetched: string[]) => {
    if (!split) return;
    expect(fetched.filter((f) => f.endsWith(".wasm")), `${name}: its chunk is fetched when it is first shown`).not.toEqual([]);
    for (const f of fetched) expect(initial, `${name}: ${f} was already loaded`).not.toContain(f);
  };

  // Open REPL navigates to the new session's page: its chunk arrives, and the page works.
  const repl = await step(async () => {
    await card.getByRole("button", { name: "Open REPL" }).click();
    await expect(page).toHaveURL(/\/repl\/\d+-\d+\.\d{6}$/);
    const input = page.locator("textarea.repl-input");
    await input.fill("[name] * 2");
    await input.press("Enter");
    await expect(page.locator(".transcript .entry")).toContainText("['navigated', 'navigated']");
    await expect(page).toHaveTitle("REPL · greet — Breakroom");
  });
  firstVisit("/repl/{id}", repl);
  const replUrl = page.url();

  const object = await step(async () => {
    await page.locator(".transcript .entry a.object-link").click();
    await expect(page.locator("h1")).toHaveText("Stored value");
    await expect(page.locator(".value")).toHaveText("['navigated', 'navigated']");
    await expect(page).toHaveTitle(/^Stored value · [0-9a-f]{12} — Breakroom$/);
  });
  firstVisit("/object/{cid}", object);

  // Back (popstate) to a page already loaded: nothing new.
  expect(
    await step(async () => {
      await page.goBack();
      await expect(page).toHaveURL(replUrl);
      await expect(page.locator(".transcript .entry")).toHaveCount(1);
    }),
  ).toEqual([]);

  const callstack = await step(async () => {
    await page.getByRole("link", { name: "View Call Stack" }).click();
    await expect(page.locator("h1")).toContainText("Call Stack for greet");
    await expect(page).toHaveTitle("Call stack · greet — Breakroom");
  });
  firstVisit("/callstack/{id}", callstack);

  const tree = await step(async () => {
    await page.goBack();
    await page.getByRole("link", { name: "View Call Tree" }).click();
    await expect(page.locator("h1")).toContainText("Call tree of process");
    await expect(page.locator(".call-node .badge.repl")).toHaveCount(1);
  });
  firstVisit("/call-tree/{key}", tree);
  await expect(page).toHaveTitle(/^Call tree · process .+ — Breakroom$/);

  // The server names each page in its own <title> too, for tabs, history and bookmarks.
  const served = async (url: string) => (await (await page.request.get(url)).text()).match(/<title>([^<]*)<\/title>/)?.[1];
  expect(await served(replUrl)).toBe("REPL · greet — Breakroom");
  expect(await served("/repls?search=greet")).toBe("REPL sessions · greet — Breakroom");
  expect(await served("/no/such/page")).toBe("Not found — Breakroom");
  expect(await served("/snapshots?breakpoint_id=bp-9")).toBe("Snapshots · bp-9 — Breakroom");
  // Pages of things that do not exist say so, with a 404.
  for (const url of ["/snapshots/snap-999999", "/process/nope/timeline", "/process/nope/tasks"]) {
    const response = await page.request.get(url);
    expect(response.status(), url).toBe(404);
    expect((await response.text()).match(/<title>([^<]*)<\/title>/)?.[1], url).toBe("Not found — Breakroom");
  }

  const sessions = await step(async () => {
    await page.locator(".topbar nav").getByRole("link", { name: "Sessions" }).click();
    await expect(page.locator("h1")).toHaveText("REPL Sessions");
    await expect(page).toHaveTitle("REPL sessions — Breakroom");
  });
  firstVisit("/repls", sessions);

  const processes = await step(async () => {
    await page.locator(".topbar nav").getByRole("link", { name: "Call trees" }).click();
    await expect(page.locator("h1")).toHaveText("Call trees");
    await expect(page.locator("table.processes tbody tr").first()).toBeVisible();
    await expect(page).toHaveTitle("Call trees — Breakroom");
  });
  firstVisit("/call-tree", processes);

  const snapshots = await step(async () => {
    await page.locator(".topbar nav").getByRole("link", { name: "Snapshots" }).click();
    await expect(page.locator("h1")).toHaveText("Snapshots");
    await expect(page).toHaveTitle("Snapshots — Breakroom");
  });
  firstVisit("/snapshots", snapshots);
  await page.goBack();
  await expect(page.locator("h1")).toHaveText("Call trees");

  // Live updates on pages reached by navigation, whose code came in a chunk: a new process
  // shows up in the processes table, a new pause on the main page, a new session in the index.
  const rows = await page.locator("table.processes tbody tr").count();
  const second = runProgram("greet.py", {}, ["live"]);
  await expect(page.locator("table.processes tbody tr")).toHaveCount(rows + 1);
  const back = await step(async () => {
    await page.locator(".topbar nav").getByRole("link", { name: "Paused" }).click();
    await expect(page.locator(".paused-card", { hasText: "'live'" })).toBeVisible();
  });
  expect(back, "the main page's code was loaded with the first page").toEqual([]);
  const livePause = await page.locator(".paused-card", { hasText: "'live'" }).getAttribute("data-pause-id");

  expect(
    await step(async () => {
      await page.locator(".topbar nav").getByRole("link", { name: "Sessions" }).click();
      await expect(page.locator(`tr[data-session-id="${replUrl.split("/").pop()}"]`)).toBeVisible();
      const rows = await page.locator("table.sessions tbody tr").count();
      const started = await page.request.post("/api/repl/start", { data: { pause_id: livePause } });
      expect(started.ok()).toBe(true);
      const { session_id } = await started.json();
      await expect(page.locator(`tr[data-session-id="${session_id}"]`)).toBeVisible();
      await expect(page.locator("table.sessions tbody tr")).toHaveCount(rows + 1);
    }),
  ).toEqual([]);

  // One document the whole time, and no file fetched twice.
  expect(downloads.documents()).toBe(1);
  expect(await page.evaluate(() => (window as any).__sameDocument)).toBe(true);
  const counts = new Map<string, number>();
  for (const f of downloads.files) counts.set(f, (counts.get(f) || 0) + 1);
  expect([...counts].filter(([, n]) => n > 1), "files fetched more than once").toEqual([]);

  // Both calls run to the end from the main page.
  await page.locator(".topbar nav").getByRole("link", { name: "Paused" }).click();
  for (const name of ["'navigated'", "'live'"]) {
    await page.locator(".paused-card", { hasText: name }).getByRole("button", { name: "Continue" }).click();
    await expect(page.locator(".paused-card", { hasText: name })).toHaveCount(0);
  }
  expect(await first.exited).toBe(0);
  expect(await second.exited).toBe(0);
  expect(first.output()).toContain("result 'hello navigated'");
});
