import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, Page, test } from "./fixtures";
import { freePort, runProgram, startServer, tokenFrom } from "./helpers";

// Users and roles in the browser (issue 48): a server of this test's own, with people and a
// program credential made by the command line. A viewer signs in, sees who they are and the
// paused program, and no control; a debugger sees the controls; a forced control is refused.

async function signIn(page: Page, url: string, next: string, token: string) {
  await page.goto(`${url}${next}`);
  await expect(page).toHaveURL(/\/login\?next=/);
  await page.getByLabel("Token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
}

test("a viewer sees the paused program and no control; a debugger sees them; a forced one is refused", async ({ page }) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-users-"));
  const dataDir = path.join(home, "data");
  const vera = tokenFrom(dataDir, "user", "add", "vera", "--role", "viewer");
  const dan = tokenFrom(dataDir, "user", "add", "dan", "--role", "debugger");
  const worker = tokenFrom(dataDir, "token", "add-program", "worker");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startServer(port, dataDir, home);
  try {
    const program = runProgram("role_pause.py", { BREAKROOM_URL: url, BREAKROOM_TOKEN: worker });
    const asDan = { Authorization: `Bearer ${dan}` };
    await expect
      .poll(async () => (await (await page.request.get(`${url}/api/paused`, { headers: asDan })).json()).paused.length)
      .toBe(1);
    const pause = (await (await page.request.get(`${url}/api/paused`, { headers: asDan })).json()).paused[0];
    const started = await page.request.post(`${url}/api/repl/start`, { headers: asDan, data: { pause_id: pause.id } });
    const session = (await started.json()).session_id;

    await signIn(page, url, "/", vera);
    await expect(page.locator(".signed-in .who")).toHaveText("vera (viewer)");
    const card = page.locator(".paused-card", { hasText: "settle" });
    await expect(card).toBeVisible();
    await expect(card.getByRole("button", { name: "Continue" })).toBeHidden();
    await expect(card.getByText("Skip or raise instead of running the call")).toBeHidden();
    // Reading the session is a viewer's: the link to it stays.
    await expect(card.getByRole("link", { name: "Go to open REPL" })).toBeVisible();
    await expect(page.locator("form.add-record")).toBeHidden();
    await page.goto(`${url}/repl/${session}`);
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    await expect(page.locator(".session-header")).toContainText("settle");
    await expect(page.locator(".repl-input")).toBeHidden();
    await expect(page.locator("textarea.repl-input")).toBeHidden();
    // Forced anyway, from the signed-in page: refused, and named.
    const forced = await page.request.post(`${url}/api/repl/${session}/eval`, { data: { expr: "amount" } });
    expect(forced.status()).toBe(403);
    expect((await forced.json()).message).toContain("needs the debugger role; vera is a viewer");

    await page.getByRole("link", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await signIn(page, url, `/repl/${session}`, dan);
    await expect(page.locator(".signed-in .who")).toHaveText("dan (debugger)");
    const input = page.locator("textarea.repl-input");
    await expect(input).toBeVisible();
    await input.fill("amount * 2");
    await input.press("Enter");
    await expect(page.locator(".transcript")).toContainText("42");
    await page.request.post(`${url}/api/paused/${pause.id}/continue`, { headers: asDan, data: {} });
    expect(await program.exited).toBe(0);
    expect(program.output()).toContain("settled 42");

    const audit = await page.request.get(`${url}/api/audit?action=eval`, { headers: asDan });
    expect(audit.status()).toBe(403);
  } finally {
    server.kill("SIGKILL");
  }
});
