import * as fs from "node:fs";
import { expect, test } from "./fixtures";
import { open } from "./helpers";

// The process page follows its output (issue 45): each time the process prints, the page fetches
// the lines after the last one it holds, and only those, and puts them at the end of their column.

// A program that prints a line every 100 ms (a hostile one and a coloured one among them), then,
// once told through a file, a burst of more lines than the page keeps.
const PROGRAM = [
  "import os, sys, time",
  "print('<img src=x onerror=\"document.title=1\">markup as text', flush=True)",
  "i = 0",
  "while not os.path.exists(sys.argv[1]):",
  "    print(f'tick {i}', flush=True)",
  "    print(f'\\x1b[32mgreen {i}\\x1b[0m', file=sys.stderr, flush=True)",
  "    i += 1",
  "    time.sleep(0.1)",
  "for n in range(2100):",
  "    print(f'burst {n}')",
  "print('done', flush=True)",
  "time.sleep(60)",
].join("\n");

test("a process page appends the lines a process prints, fetching only those, and keeps the newest 2,000", async ({ page, request }) => {
  const flag = `/tmp/breakroom-burst-${process.pid}-${Date.now()}`;
  const launched = await request.post("/api/processes", {
    data: { command: ["python3", "-u", "-c", PROGRAM, flag], name: "chatty" },
  });
  expect(launched.status()).toBe(200);
  const { id } = await launched.json();
  try {
    // The client Breakroom ships calls in from the program and its record changes (a change the
    // page shows above the output): after that, the program only prints.
    const record = async () => await (await request.get(`/api/processes/${id}`)).json();
    await expect.poll(async () => (await record()).process_key ?? null).not.toBeNull();
    // What the page fetches from the server's functions, from its first load on, and the
    // replies to its fetches of new lines.
    const fetched: string[] = [];
    const replies: string[] = [];
    page.on("request", (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith("/rpc/")) fetched.push(path);
    });
    page.on("response", async (r) => {
      if (new URL(r.url()).pathname === "/rpc/process_output_after") replies.push(await r.text().catch(() => ""));
    });
    await open(page, `/process/${id}`);
    const stdout = page.locator("pre.stream.stdout");
    await expect(stdout).toContainText("tick 1");
    // The live stream opened: the page refetched what it shows above the output once (what may
    // have changed since the server rendered it), and a line came in after that.
    await expect.poll(() => fetched.filter((p) => p === "/rpc/process_html").length).toBeGreaterThan(0);
    const last = Number((await stdout.locator(".line").last().textContent())?.match(/tick (\d+)/)?.[1] ?? 0);
    await expect(stdout).toContainText(`tick ${last + 1}`);
    const settled = fetched.length;
    const refetches = () => fetched.slice(settled);
    const first = stdout.locator(".line").first();
    await first.evaluate((el) => ((el as any).__kept = true));
    const seen = Number(await page.locator(".count.stdout").textContent());
    const repliesBefore = replies.length;

    await expect(stdout).toContainText(`tick ${last + 12}`);
    await expect(page.locator("pre.stream.stderr")).toContainText(`green ${last + 12}`);
    // Appended, not re-rendered: the line shown first is the same element; the page fetched
    // only new lines, never itself or its whole output again.
    expect(await first.evaluate((el) => (el as any).__kept === true && el.isConnected)).toBe(true);
    expect(refetches().filter((p) => p !== "/rpc/process_output_after")).toEqual([]);
    expect(refetches().length).toBeGreaterThan(0);
    const newLines = replies.slice(repliesBefore);
    expect(newLines.length).toBeGreaterThan(0);
    for (const reply of newLines) {
      // The first line the program printed is on the page, but in no reply after it: a reply
      // carries new lines only, never the output again.
      expect(reply).not.toContain("markup as text");
    }
    expect(Number(await page.locator(".count.stdout").textContent())).toBeGreaterThan(seen);

    // The program's markup is text, and its colours are kept in appended lines too.
    await expect(page.locator("section.output img")).toHaveCount(0);
    await expect(stdout).toContainText('<img src=x onerror="document.title=1">markup as text');
    const green = `green ${last + 12}`;
    await expect(page.locator("pre.stream.stderr .line", { hasText: green }).locator("span[style*='color']")).toHaveText(green);

    // A burst of 2,100 lines: the page keeps the newest 2,000 of both streams and says so.
    fs.writeFileSync(flag, "");
    await expect(stdout.locator(".line").last()).toHaveText("done");
    await expect(page.locator("section.output .line")).toHaveCount(2000);
    await expect(page.locator("section.output .shown")).toBeVisible();
    await expect(page.locator("section.output .shown-lines")).toHaveText("2000");
    await expect(stdout).toContainText("burst 2099");
    await expect(stdout.locator(".line", { hasText: /^tick 1$/ })).toHaveCount(0);
    expect(refetches().filter((p) => p !== "/rpc/process_output_after")).toEqual([]);

    // A reload renders the same newest lines from the server, as the same elements.
    const appended = await stdout.locator(".line").last().evaluate((el) => el.outerHTML);
    await page.reload();
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    await expect(stdout.locator(".line").last()).toHaveText("done");
    expect(await stdout.locator(".line").last().evaluate((el) => el.outerHTML)).toBe(appended);
    await expect(page.locator("section.output .line")).toHaveCount(2000);
  } finally {
    await request.post(`/api/processes/${id}/stop`);
    fs.rmSync(flag, { force: true });
  }
});

test("a process page fetches nothing while another process prints", async ({ page, request }) => {
  const flag = `/tmp/breakroom-mine-${process.pid}-${Date.now()}`;
  // This page's process prints once, then once more when told; the other prints 40 lines.
  const quiet = "import os, sys, time\nprint('first', flush=True)\nwhile not os.path.exists(sys.argv[1]):\n    time.sleep(0.02)\nprint('mine', flush=True)\ntime.sleep(60)";
  const chatty = "import time\nfor i in range(40):\n    print(f'other {i}', flush=True)\n    time.sleep(0.02)\ntime.sleep(60)";
  const launch = async (command: string[], name: string) => {
    const reply = await request.post("/api/processes", { data: { command, name } });
    expect(reply.status()).toBe(200);
    return (await reply.json()).id as string;
  };
  const ids = [await launch(["python3", "-u", "-c", quiet, flag], "quiet")];
  const record = async (id: string) => await (await request.get(`/api/processes/${id}`)).json();
  try {
    // Its first line printed and the client Breakroom ships called in (a change of its record,
    // not output) before the page opens, so no event of it is still on its way.
    await expect.poll(async () => (await record(ids[0])).stdout.lines).toBe(1);
    await expect.poll(async () => (await record(ids[0])).process_key ?? null).not.toBeNull();
    expect((await record(ids[0])).stderr.lines).toBe(0);
    const fetched: string[] = [];
    page.on("request", (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith("/rpc/")) fetched.push(path);
    });
    await open(page, `/process/${ids[0]}`);
    await expect(page.locator("pre.stream.stdout")).toContainText("first");
    // The live stream's opening fetches what was printed since the render: once, and no more.
    const lines = () => fetched.filter((p) => p === "/rpc/process_output_after").length;
    await expect.poll(lines).toBe(1);
    const before = lines();
    ids.push(await launch(["python3", "-u", "-c", chatty], "chatty"));
    // The other process's lines reached the server; then this page's process prints, and the
    // live stream brings its event after every one of theirs.
    await expect.poll(async () => (await record(ids[1])).stdout.lines).toBe(40);
    fs.writeFileSync(flag, "");
    await expect(page.locator("pre.stream.stdout")).toContainText("mine");
    expect(lines() - before).toBe(1);
    expect(await page.locator("section.output").textContent()).not.toContain("other");
  } finally {
    for (const id of ids) await request.post(`/api/processes/${id}/stop`);
    fs.rmSync(flag, { force: true });
  }
});
