import { execFileSync, spawn, ChildProcess } from "node:child_process";
import * as net from "node:net";
import * as path from "node:path";
import { expect, Page, test } from "@playwright/test";

// A test that fails midway must not leave its program paused for the next test to find.
const running: ChildProcess[] = [];
test.afterEach(() => {
  for (const child of running.splice(0)) {
    if (child.exitCode === null) child.kill();
  }
});

export interface Program {
  process: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs a Python program from end2end/programs with the Breakroom client on its path. */
export function runProgram(name: string, env: Record<string, string> = {}, args: string[] = []): Program {
  const child = spawn("python3", [path.join(__dirname, "..", "programs", name), ...args], {
    env: {
      ...process.env,
      PYTHONPATH: process.env.BREAKROOM_CLIENT_PATH!,
      BREAKROOM_URL: process.env.BREAKROOM_URL!,
      PYTHONUNBUFFERED: "1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d.toString()));
  child.stderr!.on("data", (d) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { process: child, output: () => out, exited };
}

/** The page's server function calls, by name, as they go out (from now on). */
export function rpcCalls(page: Page): string[] {
  const calls: string[] = [];
  page.on("request", (r) => {
    const match = new URL(r.url()).pathname.match(/^\/rpc\/(\w+)/);
    if (match) calls.push(match[1]);
  });
  return calls;
}

/** Loads a page and waits until it is hydrated (its buttons work). */
export async function open(page: Page, url: string) {
  await page.goto(url);
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
}

export async function screenshot(page: Page, name: string) {
  await page.screenshot({ path: path.join(__dirname, "..", "screenshots", `${name}.png`), fullPage: true });
}

/** A free TCP port on loopback, for a server of a test's own. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

/** `breakroom --data-dir D ARGS`; the token a `user add` prints alone on its last line. */
export function tokenFrom(dataDir: string, ...args: string[]): string {
  const out = execFileSync(process.env.BREAKROOM_BINARY!, ["--data-dir", dataDir, ...args], { encoding: "utf8" });
  return out.trim().split("\n").pop()!;
}

/** A server of a test's own on `port`, with `extra` flags; resolves once it is serving. */
export function startServer(port: number, dataDir: string, home: string, extra: string[] = []): Promise<ChildProcess> {
  const root = path.resolve(__dirname, "..", "..");
  const server = spawn(process.env.BREAKROOM_BINARY!, ["--port", String(port), "--data-dir", dataDir, ...extra], {
    env: { ...process.env, CIDELDILL_HOME: home, LEPTOS_SITE_ROOT: path.join(root, "target", "site") },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let seen = "";
    server.stdout!.on("data", (chunk) => {
      seen += chunk.toString();
      if (seen.includes("Server running on")) resolve(server);
    });
    server.on("exit", (code) => reject(new Error(`breakroom exited with ${code}: ${seen}`)));
  });
}
