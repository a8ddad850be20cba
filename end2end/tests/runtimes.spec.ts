import { expect, test } from "./fixtures";
import { open, rpcCalls } from "./helpers";

test("a workspace opened from /runtimes runs bash and Python in two tabs that keep their state", async ({ page }) => {
  const ws = `e2e-${Date.now()}`;
  await open(page, "/runtimes");
  await expect(page).toHaveTitle(/^Runtimes — Breakroom$/);
  await page.getByLabel("Workspace").fill("bad name!");
  await page.getByRole("button", { name: "Open" }).click();
  await expect(page.locator(".error")).toContainText("1 to 64 characters");
  await page.getByLabel("Workspace").fill(ws);
  await page.getByRole("button", { name: "Open" }).click();
  await expect(page).toHaveURL(new RegExp(`/runtime/${ws}$`));
  await expect(page).toHaveTitle(`Runtime · ${ws} — Breakroom`);

  // bash: Enter runs, state carries over to the next command.
  const bash = page.getByLabel("bash command");
  await bash.fill("cd /tmp && export GREETING=hello");
  await bash.press("Enter");
  const bashTerminal = page.locator('.terminal[data-language="bash"]');
  await expect(bashTerminal.locator(".new-entry")).toHaveCount(1);
  await bash.fill("echo $GREETING from $(pwd); echo warn >&2; false");
  await bash.press("Enter");
  const last = bashTerminal.locator(".new-entry").last();
  await expect(last.locator(".stdout")).toHaveText("hello from /tmp\n");
  await expect(last.locator(".stderr")).toHaveText("warn\n");
  await expect(last.locator(".exec-facts")).toContainText("exit code 1");
  await expect(page.locator(".bash-cwd")).toHaveText("/tmp");

  // ↑ recalls the previous input.
  await bash.press("ArrowUp");
  await expect(bash).toHaveValue("echo $GREETING from $(pwd); echo warn >&2; false");
  await bash.fill("");

  // Python: its own tab; Shift+Enter adds a line; a final expression is shown.
  await page.getByRole("tab", { name: "Python" }).click();
  await expect(bashTerminal).toBeHidden();
  const python = page.getByLabel("Python input");
  await python.fill("import json");
  await python.press("Shift+Enter");
  await python.pressSequentially("data = {'n': 6 * 7}");
  await python.press("Enter");
  const pyTerminal = page.locator('.terminal[data-language="python"]');
  await expect(pyTerminal.locator(".new-entry")).toHaveCount(1);
  await python.fill("json.dumps(data)");
  await python.press("Enter");
  await expect(pyTerminal.locator(".new-entry").last().locator(".stdout")).toHaveText(`'{"n": 42}'\n`);
  await python.fill("1/0");
  await python.press("Enter");
  await expect(pyTerminal.locator(".new-entry").last().locator(".stderr")).toContainText("ZeroDivisionError");
  await expect(page.locator(".state-imports")).toContainText("json");
  await expect(page.locator(".state-variables")).toContainText("data: dict");

  // Back on the bash tab, its transcript is still there; a reload shows the earlier commands
  // with what they printed.
  await page.getByRole("tab", { name: "bash" }).click();
  await expect(bashTerminal.locator(".new-entry")).toHaveCount(2);
  await open(page, `/runtime/${ws}`);
  const earlier = page.locator('.terminal[data-language="bash"] .entry.earlier');
  await expect(earlier).toHaveCount(2);
  await expect(earlier.last().locator(".stdout")).toHaveText("hello from /tmp\n");
  await expect(earlier.last().locator(".stderr")).toHaveText("warn\n");

  // The list shows the workspace with both processes; Reset ends them.
  await open(page, "/runtimes");
  const row = page.locator("tr.workspace", { hasText: ws });
  await expect(row.locator(".countdown")).toContainText("more");
  await expect(row.locator("td").nth(1)).toHaveText(/^\d+$/);
  await expect(row.locator("td").nth(2)).toHaveText(/^\d+$/);
  await row.getByRole("link", { name: ws }).click();
  await page.getByRole("button", { name: "Reset" }).click();
  await expect(page.locator(".bash-cwd")).toHaveText("(bash not running)");
  const bashAgain = page.getByLabel("bash command");
  await bashAgain.fill('echo "[$GREETING]"');
  await bashAgain.press("Enter");
  await expect(page.locator('.terminal[data-language="bash"] .new-entry').last().locator(".stdout")).toHaveText("[]\n");
});

test("commands run elsewhere show on /runtimes and in the workspace's state as they happen, with no fetch on a timer", async ({ page, context, request }) => {
  const ws = `elsewhere-${Date.now()}`;
  const listCalls = rpcCalls(page);
  await open(page, "/runtimes");
  // The live stream's opening reads the list once.
  await expect.poll(() => listCalls.filter((c) => c === "runtimes_html").length).toBe(1);
  const row = page.locator(`tr.workspace[data-workspace="${ws}"]`);
  await expect(row).toHaveCount(0);

  // An agent opens the workspace over REST: the list shows it, counting its idle time down.
  const exec = (command: string) => request.post(`/api/runtimes/${ws}/exec`, { data: { command, idle_timeout_s: 600 } });
  expect((await exec("export FROM_AGENT=1")).status()).toBe(200);
  await expect(row.locator(".countdown .left")).toHaveText(/^(9|10) min \d+ s$/);
  const left = await row.locator(".countdown .left").textContent();
  // It counts down in the page: the text moves on with no fetch of the list.
  const reads = listCalls.filter((c) => c === "runtimes_html").length;
  await expect(row.locator(".countdown .left")).not.toHaveText(left!);
  expect(listCalls.filter((c) => c === "runtimes_html").length).toBe(reads);

  // The workspace's page follows commands from elsewhere in its state panel.
  const wsPage = await context.newPage();
  await open(wsPage, `/runtime/${ws}`);
  await expect(wsPage.locator(".state-env")).toContainText("FROM_AGENT=1");
  await expect(wsPage.locator(".bash-cwd")).not.toHaveText("/tmp");
  expect((await exec("cd /tmp && echo moved")).status()).toBe(200);
  await expect(wsPage.locator(".bash-cwd")).toHaveText("/tmp");
  await expect(row.locator("td").nth(3)).toHaveText("2");

  // Ended elsewhere: it leaves the list.
  expect((await request.delete(`/api/runtimes/${ws}`)).status()).toBe(200);
  await expect(row).toHaveCount(0);
});
