import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, test } from "./fixtures";
import { open } from "./helpers";

// A process page shows its own logpoint lines and breakpoint hits (issue 45: each event updates
// the part it concerns): another process's hits do not make it fetch anything.

const OTHER = ["import time", "n = 0", "while True:", "    n += 1", "    time.sleep(0.02)"].join("\n");
const MINE = [
  "import os, sys, time",
  "while not os.path.exists(sys.argv[1]):",
  "    time.sleep(0.02)",
  "arrived = 1",
  "time.sleep(60)",
].join("\n");

test("a process page fetches nothing while another process hits a logpoint, and shows its own", async ({ page, request }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-hits-"));
  const [other, mine, flag] = ["other.py", "mine.py", "flag"].map((name) => path.join(dir, name));
  fs.writeFileSync(other, OTHER);
  fs.writeFileSync(mine, MINE);
  const logpoint = async (file: string, line: number, log_message: string) => {
    const reply = await request.post("/api/breakpoints", { data: { kind: "line", file, line, log_message } });
    expect(reply.status()).toBe(200);
    return (await reply.json()).id as string;
  };
  const hits = async (id: string) =>
    ((await (await request.get("/api/breakpoints")).json()).items as { id: string; hit_count: number }[]).find((b) => b.id === id)?.hit_count ?? 0;
  const launch = async (command: string[], name: string) => {
    const reply = await request.post("/api/processes", { data: { command, name } });
    expect(reply.status()).toBe(200);
    return (await reply.json()).id as string;
  };
  const record = async (id: string) => await (await request.get(`/api/processes/${id}`)).json();
  const breakpoints = [await logpoint(other, 4, "other {n}"), await logpoint(mine, 4, "mine arrived")];
  const ids: string[] = [];
  try {
    ids.push(await launch(["python3", mine, flag], "mine"));
    // Its client called in (a change of its record), so no event of it is on its way.
    await expect.poll(async () => (await record(ids[0])).process_key ?? null).not.toBeNull();
    const fetched: string[] = [];
    page.on("request", (r) => {
      const p = new URL(r.url()).pathname;
      if (p.startsWith("/rpc/")) fetched.push(p);
    });
    const refetches = () => fetched.filter((p) => p === "/rpc/process_html").length;
    await open(page, `/process/${ids[0]}`);
    // The live stream's opening refetches the page once.
    await expect.poll(refetches).toBe(1);

    ids.push(await launch(["python3", other], "other"));
    const start = await hits(breakpoints[0]);
    await expect.poll(() => hits(breakpoints[0]), { timeout: 20_000 }).toBeGreaterThan(start + 20);
    expect(refetches()).toBe(1);

    // Its own logpoint's line shows.
    fs.writeFileSync(flag, "");
    await expect(page.locator(".process-breakpoints")).toContainText("mine arrived");
    await expect(page.locator(".process-breakpoints")).not.toContainText("other");
  } finally {
    for (const id of ids) await request.post(`/api/processes/${id}/stop`);
    for (const id of breakpoints) await request.delete(`/api/breakpoints/${id}`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
