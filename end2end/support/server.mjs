// What the scripts that measure the release build share: a server on a free port with a
// throwaway home, JSON requests, and Debian's Chromium.
import { spawn } from "node:child_process";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const binary = process.env.BREAKROOM_BIN || path.join(root, "target", "release", "breakroom");
export const siteRoot = process.env.LEPTOS_SITE_ROOT || path.join(root, "target", "site");

/** Starts the server on a free port with `home` as its home and `home/data` as its data. */
export async function startServer(home) {
  const server = spawn(binary, ["--port", "0", "--eval-timeout", "10", "--data-dir", path.join(home, "data")], {
    env: { ...process.env, CIDELDILL_HOME: home, LEPTOS_SITE_ROOT: siteRoot },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`breakroom did not start: ${seen}`)), 20_000);
    server.stdout.on("data", (chunk) => {
      seen += chunk.toString();
      const match = seen.match(/Server running on (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    server.on("exit", (code) => reject(new Error(`breakroom exited with ${code}: ${seen}`)));
  });
  return { server, url };
}

export async function json(url, init) {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method || "GET"} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

export const post = (url, body) =>
  json(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

export const launchChromium = (extraArgs = []) =>
  chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", ...extraArgs],
  });

export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
