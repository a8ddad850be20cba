// What a browser downloads as the document of each server-rendered page (the HTML response,
// before and after gzip -9), with a paused call whose REPL session holds 100 entries and a
// process with 300 calls in its call tree. Figures only: scripts/page-bytes.sh runs it after
// scripts/build.sh. PAGE_BYTES_KEEP=DIR keeps each document there, to read.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { json, post, root, startServer } from "./support/server.mjs";

const home = fs.mkdtempSync(path.join(os.tmpdir(), "page-bytes-"));
const { server, url } = await startServer(home);
const program = spawn("python3", [path.join(root, "end2end", "programs", "transcript.py")], {
  env: { ...process.env, PYTHONPATH: path.join(root, "client"), BREAKROOM_URL: url, PYTHONUNBUFFERED: "1" },
  stdio: ["ignore", "ignore", "inherit"],
});
try {
  let paused;
  for (let i = 0; i < 400 && !paused; i++) {
    paused = (await json(`${url}/api/paused`)).paused.find((p) => p.call_data.process_pid === program.pid);
    if (!paused) await new Promise((r) => setTimeout(r, 50));
  }
  if (!paused) throw new Error("transcript.py did not pause");
  const { session_id } = await post(`${url}/api/repl/start`, { pause_id: paused.id });
  for (let i = 0; i < 100; i++) {
    await post(`${url}/api/repl/${session_id}/eval`, { expr: `[n, ${i}, 'entry number ${i} of the transcript']` });
  }
  // A second process's 300 calls, reported as a client does.
  for (let i = 0; i < 300; i++) {
    const { call_id } = await post(`${url}/api/call/start`, {
      method_name: `job_${i}`,
      process_pid: 777,
      process_start_time: 1795331833.75,
      args: [],
    });
    await post(`${url}/api/call/complete`, {
      call_id,
      status: "success",
      process_pid: 777,
      process_start_time: 1795331833.75,
    });
  }
  const pages = [
    ["/", "/"],
    [`/repl/{id} (100 entries)`, `/repl/${session_id}`],
    ["/callstack/{id}", `/callstack/${paused.id}`],
    ["/call-tree/{key} (300 calls)", `/call-tree/1795331833.750000+777`],
    ["/repls", "/repls"],
    ["/processes", "/processes"],
  ];
  console.log("page                            HTML B   gzip -9 B");
  for (const [name, address] of pages) {
    const response = await fetch(`${url}${address}`);
    const body = Buffer.from(await response.arrayBuffer());
    if (!response.ok) throw new Error(`${address}: ${response.status}`);
    const gzipped = zlib.gzipSync(body, { level: 9 }).length;
    if (process.env.PAGE_BYTES_KEEP) fs.writeFileSync(path.join(process.env.PAGE_BYTES_KEEP, name.replace(/\W+/g, "_") + ".html"), body);
    console.log(`${name.padEnd(30)} ${String(body.length).padStart(8)}  ${String(gzipped).padStart(10)}`);
  }
} finally {
  program.kill();
  server.kill();
  fs.rmSync(home, { recursive: true, force: true });
}
