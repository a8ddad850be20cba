import { ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { expect, test } from "./fixtures";
import { screenshot } from "./helpers";

// A page on another origin (a tiny static server) loads the client Breakroom serves and pauses in
// the same UI as Python programs: a Breakroom of its own, started with --allow-origin for that page.

const root = path.resolve(__dirname, "..", "..");

async function staticServer(html: () => string): Promise<http.Server> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(html());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

async function startBreakroom(allowOrigin: string): Promise<{ child: ChildProcess; url: string }> {
  const binary = process.env.BREAKROOM_BIN || path.join(root, "target", "release", "breakroom");
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-js-"));
  const child = spawn(binary, ["--port", "0", "--memory", "--allow-origin", allowOrigin], {
    env: { ...process.env, CIDELDILL_HOME: home, LEPTOS_SITE_ROOT: path.join(root, "target", "site") },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk) => {
      seen += chunk.toString();
      const match = seen.match(/Server running on (http:\/\/\S+)/);
      if (match) resolve(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`breakroom exited with ${code}: ${seen}`)));
  });
  return { child, url };
}

test("a page on another origin loads /api/debug-client.js, pauses, evaluates JavaScript in the page and continues", async ({ page, request }) => {
  let breakroomUrl = "";
  const pageServer = await staticServer(() =>
    fs.readFileSync(path.join(__dirname, "..", "pages", "js_client.html"), "utf8").replaceAll("__BREAKROOM_URL__", breakroomUrl),
  );
  const pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  const breakroom = await startBreakroom(pageOrigin);
  breakroomUrl = breakroom.url;
  try {
    const added = await request.post(`${breakroomUrl}/api/breakpoints`, { data: { function_name: "greet" } });
    expect(added.ok()).toBeTruthy();

    const logged: string[] = [];
    page.on("console", (m) => logged.push(m.text()));
    page.on("pageerror", (e) => logged.push(String(e)));
    await page.goto(pageOrigin);
    await expect(page.locator("body[data-ready]")).toBeAttached();
    await page.locator("#go").click();

    const ui = await page.context().newPage();
    await ui.goto(breakroomUrl);
    await expect(ui.locator("body[data-hydrated]")).toBeAttached();
    const card = ui.locator(".paused-card", { hasText: "greet" });
    await expect(card).toBeVisible();
    await expect(card.locator(".lang")).toHaveText("JavaScript");
    await expect(card.locator(".args")).toHaveText('"ab", 2');
    await card.getByRole("button", { name: "Open REPL" }).click();
    await expect(ui).toHaveURL(/\/repl\//);
    await expect(ui.locator(".session-header .lang")).toHaveText("JavaScript");

    const input = ui.locator("textarea.repl-input");
    const run = async (expr: string, entry: number) => {
      await input.fill(expr);
      await input.press("Enter");
      const row = ui.locator(".transcript .entry").nth(entry);
      await expect(row.locator(".input")).toContainText(expr);
      return row;
    };
    const first = await run("typeof name === 'string' && `${name}:${times}`", 0);
    await expect(first.locator(".output")).toHaveText('"ab:2"');
    await expect(first.locator(".input .tok-kw").first()).toHaveText("typeof");
    await expect(first.locator(".input .tok-str").first()).toHaveText("'string'");
    await expect(first.locator(".prompt")).toHaveText("> ");
    const second = await run("console.log('in the page', location.origin); times = 3", 1);
    await expect(second.locator(".stdout")).toContainText(`in the page ${pageOrigin}`);
    await screenshot(ui, "repl-javascript");

    await ui.goto(breakroomUrl);
    // A click before the page hydrates does nothing (it failed once in a fresh clone that way).
    await expect(ui.locator("body[data-hydrated]")).toBeAttached();
    await ui.locator(".paused-card", { hasText: "greet" }).getByRole("button", { name: "Continue" }).click();
    await expect(page.locator("#out")).toHaveText("ababab");
    expect(logged.filter((l) => /error/i.test(l))).toEqual([]);
  } finally {
    breakroom.child.kill();
    pageServer.close();
  }
});
