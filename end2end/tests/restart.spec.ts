import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, test } from "./fixtures";
import { freePort, open, runProgram, startServer } from "./helpers";

// A server of this test's own (the shared one must keep running), killed and started again on
// the same port and data directory while a page is open on it (issue 32).

test("the page says when the server is unreachable and recovers without a reload", async ({ page }) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-restart-"));
  const dataDir = path.join(home, "data");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let server = await startServer(port, dataDir, home);
  try {
    await open(page, `${url}/`);
    const banner = page.locator(".topbar .unreachable");
    await expect(banner).toBeHidden();

    const gone = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGKILL");
    // Its port and its data directory's lock are free only once it has exited.
    await gone;
    await expect(banner).toBeVisible();
    await expect(banner).toHaveText("Server unreachable: reconnecting…");

    server = await startServer(port, dataDir, home);
    await expect(banner).toBeHidden();
    // The stream is back: a pause made now shows on the page without a reload.
    const program = runProgram("restart_pause.py", { BREAKROOM_URL: url });
    await expect(page.locator(".paused-card")).toHaveCount(1, { timeout: 15_000 });
    await expect(page.locator(".paused-card")).toContainText("<module>");
    const paused = await (await page.request.get(`${url}/api/paused`)).json();
    await page.request.post(`${url}/api/paused/${paused.paused[0].id}/continue`, { data: { action: "continue" } });
    expect(await program.exited).toBe(0);
    expect(program.output()).toContain("resumed yes");
  } finally {
    server.kill("SIGKILL");
  }
});
