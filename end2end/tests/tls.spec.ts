import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, test } from "./fixtures";
import { freePort, runProgram, startServer, tokenFrom } from "./helpers";

// The pages over HTTPS (issue 49): a server started with --tls-cert and --tls-key, a certificate
// from a throwaway CA made here with the openssl command, a program that verifies it with
// BREAKROOM_CA_FILE, and a person who signs in and evaluates in the browser. Chromium is told to
// accept the test CA's certificate (it is in no root store); everything else is as a user has it.

test.use({ ignoreHTTPSErrors: true });

function openssl(cwd: string, ...args: string[]) {
  execFileSync("openssl", args, { cwd, stdio: "ignore" });
}

function throwawayCa(folder: string) {
  const key = (name: string) => ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`];
  openssl(folder, "req", "-x509", ...key("ca"), "-out", "ca.pem", "-days", "2", "-subj", "/CN=Breakroom e2e CA");
  openssl(folder, "req", ...key("server"), "-out", "server.csr", "-subj", "/CN=localhost");
  fs.writeFileSync(path.join(folder, "ext.cnf"), "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  openssl(folder, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
    "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf");
}

test("over HTTPS a person signs in, evaluates in a paused program and continues it", async ({ page, context }) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-tls-"));
  throwawayCa(home);
  const dataDir = path.join(home, "data");
  const dan = tokenFrom(dataDir, "user", "add", "dan", "--role", "debugger");
  const worker = tokenFrom(dataDir, "token", "add-program", "worker");
  const port = await freePort();
  const url = `https://127.0.0.1:${port}`;
  const server = await startServer(port, dataDir, home, [
    "--tls-cert", path.join(home, "server.pem"), "--tls-key", path.join(home, "server.key"),
  ]);
  try {
    const program = runProgram("role_pause.py", {
      BREAKROOM_URL: url,
      BREAKROOM_CA_FILE: path.join(home, "ca.pem"),
      BREAKROOM_TOKEN: worker,
    });
    await page.goto(`${url}/`);
    await expect(page).toHaveURL(/\/login\?next=/);
    await page.getByLabel("Token").fill(dan);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    await expect(page.locator(".signed-in .who")).toHaveText("dan (debugger)");
    const session = (await context.cookies()).find((c) => c.name === "breakroom_session");
    expect(session?.secure).toBe(true);

    // The paused program arrives through the live stream, over TLS.
    const card = page.locator(".paused-card", { hasText: "settle" });
    await expect(card).toBeVisible();
    await card.getByRole("button", { name: "Open REPL" }).click();
    await expect(page).toHaveURL(/\/repl\//);
    const input = page.locator("textarea.repl-input");
    await input.fill("amount * 2");
    await input.press("Enter");
    await expect(page.locator(".transcript .entry").first().locator(".output")).toHaveText("42");

    await page.goto(`${url}/`);
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    await page.locator(".paused-card", { hasText: "settle" }).getByRole("button", { name: "Continue" }).click();
    expect(await program.exited).toBe(0);
    expect(program.output()).toContain("settled 42");
  } finally {
    server.kill("SIGKILL");
  }
});
