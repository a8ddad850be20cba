import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, test } from "./fixtures";
import { freePort, open } from "./helpers";

// The wheel as a user installs it (issue 53): scripts/test.sh installs dist/breakroom-*.whl into a
// fresh venv in a temporary directory and names it in BREAKROOM_WHEEL_VENV.
const venv = process.env.BREAKROOM_WHEEL_VENV;

test("the installed wheel's breakroom, started elsewhere with no project variables, serves working pages from its binary and debugs a program using its client", async ({ page }) => {
  test.skip(!venv, "BREAKROOM_WHEEL_VENV is unset: scripts/test.sh builds and installs the wheel");
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-wheel-e2e-"));
  // A user's shell: none of the project's variables, and another directory.
  const env: Record<string, string> = { HOME: home, PATH: `${venv}/bin:/usr/bin:/bin`, XDG_DATA_HOME: path.join(home, "data") };
  const port = await freePort();
  const server = spawn(path.join(venv!, "bin", "breakroom"), ["--port", String(port)], { cwd: home, env, stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise<void>((resolve, reject) => {
      let seen = "";
      server.stdout!.on("data", (chunk) => {
        seen += chunk.toString();
        if (seen.includes("Server running on")) resolve();
      });
      server.on("exit", (code) => reject(new Error(`breakroom exited with ${code}: ${seen}`)));
    });
    const url = `http://127.0.0.1:${port}`;

    // The wasm and CSS the page loads come from the binary (there is no site directory here).
    const assets: string[] = [];
    page.on("response", (response) => {
      if (/\/pkg\/.*\.(wasm|css)$/.test(response.url()) && response.ok()) assets.push(response.url());
    });
    await open(page, url + "/");
    expect(assets.some((a) => a.endsWith("/pkg/breakroom.css"))).toBe(true);
    expect(assets.some((a) => a.endsWith(".wasm"))).toBe(true);
    const css = await page.request.get(url + "/pkg/breakroom.css");
    expect(css.headers()["content-type"]).toBe("text/css");

    const program = spawn(path.join(venv!, "bin", "python"), [path.join(__dirname, "..", "programs", "compute.py")], {
      cwd: home,
      env: { ...env, BREAKROOM_URL: url, PYTHONUNBUFFERED: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    program.stdout!.on("data", (d) => (out += d.toString()));
    program.stderr!.on("data", (d) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => program.on("exit", (code) => resolve(code)));
    try {
      const card = page.locator(".paused-card", { hasText: "compute" });
      await expect(card).toBeVisible();
      await expect(card.locator(".pid")).toHaveText(String(program.pid));
      await card.getByRole("button", { name: "Open REPL" }).click();
      const input = page.locator("textarea.repl-input");
      await input.fill("a * b");
      await input.press("Enter");
      await expect(page.locator(".transcript .entry").nth(0)).toContainText("42");

      await open(page, url + "/");
      await page.locator(".paused-card", { hasText: "compute" }).getByRole("button", { name: "Continue" }).click();
      expect(await exited).toBe(0);
      expect(out).toContain("43");
    } finally {
      if (program.exitCode === null) program.kill();
    }
  } finally {
    server.kill();
  }
});
