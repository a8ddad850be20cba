import * as fs from "node:fs";
import { expect, test } from "./fixtures";
import { open } from "./helpers";

// The process list follows process events row by row (issue 45): a process that starts or ends
// has its own row fetched and put in place, one that is forgotten has its row taken out, and the
// whole list is not fetched again for either.

// A parent that starts a Python child; both wait for a file, then end.
const PARENT = [
  "import os, subprocess, sys, time",
  "wait = 'import os, sys, time\\nwhile not os.path.exists(sys.argv[1]):\\n    time.sleep(0.02)'",
  "child = subprocess.Popen([sys.executable, '-c', wait, sys.argv[1]])",
  "while not os.path.exists(sys.argv[1]):",
  "    time.sleep(0.02)",
  "child.wait()",
].join("\n");

test("the process list puts a started, ended or forgotten process's row in place without fetching the list", async ({ page, request }) => {
  const flag = `/tmp/breakroom-rows-${process.pid}-${Date.now()}`;
  const name = `<img src=x onerror="document.title='xss'">rows-${Date.now()}`;
  const fetched: string[] = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/rpc/")) fetched.push(path);
  });
  const count = (path: string) => fetched.filter((p) => p === path).length;
  // A process listed before the page opens: the first row of an empty list comes with the list.
  const resident = await request.post("/api/processes", { data: { command: ["python3", "-c", "import time; time.sleep(60)"], name: "resident" } });
  expect(resident.status()).toBe(200);
  const ids = [(await resident.json()).id as string];
  await open(page, "/processes");
  await expect(page.locator(`tr[data-process-id="${ids[0]}"]`)).toHaveCount(1);
  // The live stream's opening fetches the list once (what changed since the render).
  await expect.poll(() => count("/rpc/tracked_processes_html")).toBe(1);
  const lists = count("/rpc/tracked_processes_html");

  const launched = await request.post("/api/processes", { data: { command: ["python3", "-c", PARENT, flag], name } });
  expect(launched.status()).toBe(200);
  const { id } = await launched.json();
  ids.push(id);
  const row = (of: string) => page.locator(`table.processes.tracked tr[data-process-id="${of}"]`);
  try {
    // It shows, its name as text, with its own row fetched.
    await expect(row(id).locator("td.tree-name a")).toHaveText(name);
    await expect(row(id).locator("img")).toHaveCount(0);
    await expect(row(id).locator(".process-status")).toHaveText("running");
    expect(count("/rpc/tracked_process_row")).toBeGreaterThan(0);

    // Its child calls in and shows right under it, indented.
    await expect.poll(async () => (await (await request.get(`/api/processes/${id}`)).json()).children.length, { timeout: 15_000 }).toBe(1);
    const child = (await (await request.get(`/api/processes/${id}`)).json()).children[0] as string;
    ids.push(child);
    await expect(row(child).locator("td.tree-name")).toContainText("└");
    expect(await row(child).evaluate((r) => r.previousElementSibling?.getAttribute("data-process-id"))).toBe(id);

    // Both end: their rows say so (the child, which the server did not start, as the server
    // saw its end: `lost` once its client is gone).
    fs.writeFileSync(flag, "");
    await expect(row(id).locator(".process-status")).toHaveText("exited");
    await expect(row(child).locator(".process-status")).not.toHaveText("running");
    const status = (await (await request.get(`/api/processes/${child}`)).json()).status as string;
    await expect(row(child).locator(".process-status")).toHaveText(status);

    // The child is forgotten: its row goes, with nothing fetched for it.
    const before = fetched.length;
    expect((await request.delete(`/api/processes/${child}`)).status()).toBeLessThan(300);
    await expect(row(child)).toHaveCount(0);
    await expect(row(id)).toHaveCount(1);
    expect(fetched.slice(before)).toEqual([]);

    // Through all of it, the whole list was never fetched again, and the page ran no markup.
    expect(count("/rpc/tracked_processes_html")).toBe(lists);
    expect(await page.title()).not.toBe("xss");

    // A reload renders the same rows from the server.
    await page.reload();
    await expect(row(id).locator(".process-status")).toHaveText("exited");
    await expect(row(child)).toHaveCount(0);
  } finally {
    for (const each of ids) await request.post(`/api/processes/${each}/stop`);
    fs.rmSync(flag, { force: true });
  }
});
