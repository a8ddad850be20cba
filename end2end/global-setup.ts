import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

// Starts the release binary on a free port and hands its URL to the tests.
export default async function globalSetup() {
  const root = path.resolve(__dirname, "..");
  // The binary built last, release (scripts/test.sh, `cargo leptos end-to-end --release`) or debug
  // (a plain `cargo leptos end-to-end`): both builds write the site to target/site, so the newest
  // binary is the one that matches it. BREAKROOM_BIN picks another, LEPTOS_SITE_ROOT its site.
  const newest = ["release", "debug"]
    .map((profile) => path.join(root, "target", profile, "breakroom"))
    .filter((file) => fs.existsSync(file))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  const binary = process.env.BREAKROOM_BIN || newest;
  if (!binary || !fs.existsSync(binary)) {
    throw new Error(`${binary || "target/release/breakroom"} is missing: build it with scripts/build.sh first`);
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-e2e-"));
  const server = spawn(binary, ["--port", "0", "--dap-port", "0", "--eval-timeout", "10", "--data-dir", path.join(home, "data")], {
    env: { ...process.env, CIDELDILL_HOME: home, LEPTOS_SITE_ROOT: process.env.LEPTOS_SITE_ROOT || path.join(root, "target", "site") },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`breakroom did not start: ${seen}`)), 20_000);
    server.stdout!.on("data", (chunk) => {
      seen += chunk.toString();
      const match = seen.match(/Server running on (http:\/\/\S+)/);
      const dap = seen.match(/DAP on 127\.0\.0\.1:(\d+)/);
      if (dap) process.env.BREAKROOM_DAP_PORT = dap[1];
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    server.on("exit", (code) => reject(new Error(`breakroom exited with ${code}: ${seen}`)));
  });
  process.env.BREAKROOM_URL = url;
  process.env.BREAKROOM_BINARY = binary;
  process.env.BREAKROOM_CLIENT_PATH = path.join(root, "client");
  return async () => {
    server.kill();
  };
}
