import { expect, test } from "./fixtures";
import { DebugClient } from "@vscode/debugadapter-testsupport";
import * as path from "node:path";
import { runProgram } from "./helpers";

// Microsoft's DAP test client drives `breakroom dap` (its stdio adapter, as an editor launches
// it) and the server's --dap-port, against real Python programs.

const programs = path.join(__dirname, "..", "programs");
const target = path.join(programs, "dap_target.py");
const line = (n: number) => n; // the programs' lines, 1-based as DAP's default

/** `breakroom dap` for the test's server, initialized. */
async function adapter(port?: number): Promise<DebugClient> {
  const dc = new DebugClient(process.env.BREAKROOM_BINARY!, "dap", "breakroom", {
    env: { ...process.env, BREAKROOM_URL: process.env.BREAKROOM_URL! },
  });
  dc.defaultTimeout = 15_000;
  await dc.start(port);
  const initialized = dc.waitForEvent("initialized");
  const init = await dc.initializeRequest({ adapterID: "breakroom", linesStartAt1: true, columnsStartAt1: true });
  expect(init.body?.supportsStepBack).toBe(true);
  expect(init.body?.supportsConditionalBreakpoints).toBe(true);
  await initialized;
  return dc;
}

async function topFrame(dc: DebugClient, threadId: number) {
  const trace = await dc.stackTraceRequest({ threadId });
  return trace.body.stackFrames[0];
}

async function locals(dc: DebugClient, frameId: number) {
  const scopes = await dc.scopesRequest({ frameId });
  const reference = scopes.body.scopes.find((s) => s.name === "Locals")!.variablesReference;
  return (await dc.variablesRequest({ variablesReference: reference })).body.variables;
}

test.setTimeout(90_000);

test("an editor launches a program, stops at its line breakpoint, inspects, steps, steps back, sets a variable and runs to the end", async ({
  request,
}) => {
  const dc = await adapter();
  try {
    const set = await dc.setBreakpointsRequest({ source: { path: target }, breakpoints: [{ line: line(12) }] });
    expect(set.body.breakpoints[0].verified).toBe(true);
    // The editor's breakpoint is the server's record, shown on the pages too.
    const records = await (await request.get("/api/breakpoints")).json();
    expect(records.items.some((b: { file?: string; line?: number }) => b.file === target && b.line === 12)).toBe(true);

    const stopped = dc.waitForEvent("stopped");
    let printed = "";
    dc.on("output", (e) => (printed += e.body.output));
    await dc.configurationDoneRequest();
    await dc.launchRequest({ program: target, checkpoints: true } as any);
    const stop = await stopped;
    expect(stop.body.reason).toBe("breakpoint");
    expect(stop.body.allThreadsStopped).toBe(false);
    const threadId = stop.body.threadId;
    const threads = await dc.threadsRequest();
    expect(threads.body.threads.find((t) => t.id === threadId)?.name).toContain("MainThread");

    let frame = await topFrame(dc, threadId);
    expect([frame.name, frame.line, frame.source?.path]).toEqual(["checkout", 12, target]);
    const vars = await locals(dc, frame.id);
    // The program's names only: the breakpoint's own `breakpoint_hit` is not one of its locals.
    expect(vars.map((v) => v.name).sort()).toEqual(["price", "prices", "total"]);
    expect(vars.find((v) => v.name === "total")?.value).toBe("0");
    const prices = vars.find((v) => v.name === "prices")!;
    expect(prices.value).toBe("[3, 4]");
    const items = await dc.variablesRequest({ variablesReference: prices.variablesReference });
    expect(items.body.variables.map((v) => v.value)).toEqual(["3", "4"]);

    // The Globals scope: the module's functions are there.
    const allScopes = (await dc.scopesRequest({ frameId: frame.id })).body.scopes;
    expect(allScopes.map((s) => s.name)).toEqual(["Locals", "Globals", "REPL session"]);
    const globals = await dc.variablesRequest({ variablesReference: allScopes[1].variablesReference });
    expect(globals.body.variables.find((v) => v.name === "add")?.type).toBe("function");
    const source = await dc.sourceRequest({ source: { path: target }, sourceReference: 0 });
    expect(source.body.content).toContain("def checkout(prices):");

    const evaluated = await dc.evaluateRequest({ expression: "total + price", frameId: frame.id, context: "repl" });
    expect(evaluated.body.result).toBe("3");
    const hover = await dc.evaluateRequest({ expression: "price * 10", frameId: frame.id, context: "hover" });
    expect(hover.body.result).toBe("30");
    const completions = await dc.completionsRequest({ text: "pri", column: 4, frameId: frame.id });
    expect(completions.body.targets.map((t) => t.label)).toEqual(expect.arrayContaining(["price", "prices"]));
    // The console's evaluation is in the REPL session's transcript; the hover is not.
    const paused = await (await request.get("/api/paused")).json();
    const session = paused.paused.find((p: { call_data: { method_name: string } }) => p.call_data.method_name === "checkout");
    const transcript = (await (await request.get(`/api/repl/${session.repl_sessions[0]}`)).json()).session.transcript;
    expect(transcript.map((e: { input: string }) => e.input)).toEqual(["total + price"]);

    await Promise.all([dc.stepInRequest({ threadId }), dc.assertStoppedLocation("step", { line: line(5) })]);
    frame = await topFrame(dc, threadId);
    expect(frame.name).toBe("add");
    await Promise.all([dc.nextRequest({ threadId }), dc.assertStoppedLocation("step", { line: line(6) })]);
    await Promise.all([dc.stepOutRequest({ threadId }), dc.assertStoppedLocation("step", { line: line(12) })]);
    await Promise.all([dc.nextRequest({ threadId }), dc.assertStoppedLocation("step", { line: line(11) })]);
    frame = await topFrame(dc, threadId);
    expect((await locals(dc, frame.id)).find((v) => v.name === "total")?.value).toBe("3");

    // Step back: the state before the last step, on the same DAP thread.
    await Promise.all([dc.stepBackRequest({ threadId }), dc.assertStoppedLocation("step", { line: line(12) })]);
    frame = await topFrame(dc, threadId);
    expect((await locals(dc, frame.id)).find((v) => v.name === "total")?.value).toBe("0");

    // setVariable on a local, and on an item of one: the loop then adds 40, not 4.
    const scopes = await dc.scopesRequest({ frameId: frame.id });
    const reference = scopes.body.scopes.find((s) => s.name === "Locals")!.variablesReference;
    const changed = await dc.setVariableRequest({ variablesReference: reference, name: "price", value: "30" });
    expect(changed.body.value).toBe("30");
    expect((await dc.evaluateRequest({ expression: "price", frameId: frame.id, context: "watch" })).body.result).toBe("30");
    const list = (await locals(dc, frame.id)).find((v) => v.name === "prices")!;
    const second = (await dc.variablesRequest({ variablesReference: list.variablesReference })).body.variables[1];
    await dc.setVariableRequest({ variablesReference: list.variablesReference, name: second.name, value: "40" });
    expect((await dc.evaluateRequest({ expression: "prices", frameId: frame.id, context: "watch" })).body.result).toBe("[3, 40]");

    await dc.setBreakpointsRequest({ source: { path: target }, breakpoints: [] });
    const after = await (await request.get("/api/breakpoints")).json();
    expect(after.items.some((b: { file?: string }) => b.file === target)).toBe(false);
    await dc.continueRequest({ threadId });
    // The program's own output reaches the editor's console.
    await expect.poll(() => printed, { timeout: 15_000 }).toContain("total 43");
  } finally {
    await dc.stop();
  }
});

test("an editor attached over the DAP port sees pauses made elsewhere, two programs as two threads, and their exceptions", async ({
  request,
}) => {
  const dc = await adapter(Number(process.env.BREAKROOM_DAP_PORT));
  try {
    await dc.attachRequest({} as any);
    const exceptions = await dc.setExceptionBreakpointsRequest({
      filters: [],
      filterOptions: [{ filterId: "uncaught", condition: "KeyError" }],
    });
    expect(exceptions.body?.breakpoints?.[0].verified).toBe(true);
    await dc.configurationDoneRequest();

    // A breakpoint set on the pages reaches the editor, and so does its removal.
    const added = dc.waitForEvent("breakpoint");
    const made = await (await request.post("/api/breakpoints", { data: { kind: "line", file: target, line: 5 } })).json();
    const event = (await added).body;
    expect([event.reason, event.breakpoint.line, event.breakpoint.source?.path]).toEqual(["new", 5, target]);
    const removed = dc.waitForEvent("breakpoint");
    await request.delete(`/api/breakpoints/${made.id}`);
    expect((await removed).body).toEqual({ reason: "removed", breakpoint: { id: event.breakpoint.id, verified: false } });

    // Two programs pause (breakpoint()): two threads, each stopped.
    const stops: number[] = [];
    dc.on("stopped", (e) => stops.push(e.body.threadId));
    const first = runProgram("dap_paused.py", {}, ["--raise"]);
    await expect.poll(() => stops.length, { timeout: 15_000 }).toBe(1);
    const second = runProgram("dap_paused.py");
    await expect.poll(() => stops.length, { timeout: 15_000 }).toBe(2);
    expect(new Set(stops).size).toBe(2);
    const threads = (await dc.threadsRequest()).body.threads;
    expect(threads.filter((t) => stops.includes(t.id)).length).toBe(2);

    // Continued from the web page (REST here): the editor is told.
    const paused = (await (await request.get("/api/paused")).json()).paused;
    const secondPause = paused.find((p: { call_data: { process_pid: number } }) => p.call_data.process_pid === second.process.pid);
    const continued = dc.waitForEvent("continued");
    await request.post(`/api/paused/${secondPause.id}/continue`, { data: { action: "continue" } });
    expect((await continued).body.allThreadsContinued).toBe(false);
    expect(await second.exited).toBe(0);

    // The first one continues from the editor and stops at its uncaught KeyError.
    const firstThread = stops[0];
    const exception = dc.waitForEvent("stopped");
    const answer = await dc.continueRequest({ threadId: firstThread });
    expect(answer.body.allThreadsContinued).toBe(false);
    const stop = await exception;
    expect(stop.body.reason).toBe("exception");
    const info = await dc.exceptionInfoRequest({ threadId: stop.body.threadId });
    expect(info.body.exceptionId).toContain("KeyError");
    await dc.continueRequest({ threadId: stop.body.threadId });
    await first.exited;
    // Breakpoints outlive the session unless the editor removes them, as it does here.
    await dc.setExceptionBreakpointsRequest({ filters: [] });
    const left = (await (await request.get("/api/breakpoints")).json()).items;
    expect(left.filter((b: { kind: string }) => b.kind === "error")).toEqual([]);
  } finally {
    await dc.stop();
  }
});

test("an editor stops a launched program on entry, pauses it while it runs, and changes its state", async () => {
  const loop = path.join(programs, "dap_loop.py");
  const dc = await adapter();
  try {
    let printed = "";
    dc.on("output", (e) => (printed += e.body.output));
    const entry = dc.waitForEvent("stopped");
    await dc.configurationDoneRequest();
    await dc.launchRequest({ program: loop, stopOnEntry: true } as any);
    const atEntry = (await entry).body;
    expect(atEntry.reason).toBe("entry");
    const threadId = atEntry.threadId;
    const first = await topFrame(dc, threadId);
    expect([first.name, first.source?.path]).toEqual(["<module>", loop]);

    // Running: the editor's pause stops it at the next line it reaches, on the same thread.
    await dc.continueRequest({ threadId });
    await expect.poll(async () => (await dc.threadsRequest()).body.threads.some((t) => t.id === threadId)).toBe(true);
    const paused = dc.waitForEvent("stopped");
    await dc.pauseRequest({ threadId });
    const stop = (await paused).body;
    expect([stop.reason, stop.threadId]).toEqual(["pause", threadId]);
    const frame = await topFrame(dc, threadId);
    expect(frame.source?.path).toBe(loop);
    expect(Number((await dc.evaluateRequest({ expression: "rounds", frameId: frame.id, context: "watch" })).body.result)).toBeGreaterThan(0);

    // A pause of a thread that is paused already announces it again; the program then ends.
    const again = dc.waitForEvent("stopped");
    await dc.pauseRequest({ threadId });
    expect((await again).body.reason).toBe("pause");
    await dc.evaluateRequest({ expression: "done = True", frameId: frame.id, context: "repl" });
    await dc.continueRequest({ threadId });
    await expect.poll(() => printed, { timeout: 15_000 }).toContain("rounds True");
  } finally {
    await dc.stop();
  }
});

test("an editor pages a ten-million-item list a hundred items at a time", async () => {
  const big = path.join(programs, "dap_big.py");
  const dc = await adapter();
  try {
    await dc.setBreakpointsRequest({ source: { path: big }, breakpoints: [{ line: line(6) }] });
    const stopped = dc.waitForEvent("stopped");
    await dc.configurationDoneRequest();
    await dc.launchRequest({ program: big } as any);
    const threadId = (await stopped).body.threadId;
    const frame = await topFrame(dc, threadId);
    const list = (await locals(dc, frame.id)).find((v) => v.name === "big")!;
    expect(list.indexedVariables).toBe(10_000_000);
    expect(list.value.length).toBeLessThan(200_000); // its repr is bounded, never the whole list

    const first = (await dc.variablesRequest({ variablesReference: list.variablesReference })).body.variables;
    expect(first.length).toBe(100);
    expect(first[0].value).toBe("0");
    const page = await dc.variablesRequest({
      variablesReference: list.variablesReference,
      filter: "indexed",
      start: 4_999_950,
      count: 100,
    });
    expect(page.body.variables.map((v) => v.value)).toEqual(
      Array.from({ length: 100 }, (_, i) => String(4_999_950 + i)),
    );
    await dc.continueRequest({ threadId });
  } finally {
    // The editor's breakpoint is a server record: the tests after this one must not meet it.
    await dc.setBreakpointsRequest({ source: { path: big }, breakpoints: [] });
    await dc.stop();
  }
});

test("an editor's hit condition, logpoint and reverse continue, with the sources it has loaded", async () => {
  const hits = path.join(programs, "dap_hits.py");
  const dc = await adapter();
  try {
    let printed = "";
    dc.on("output", (e) => (printed += e.body.output));
    // Line 5 stops from its third hit on; line 6 only logs, with the frame's values.
    const set = await dc.setBreakpointsRequest({
      source: { path: hits },
      breakpoints: [{ line: 5, hitCondition: ">= 3" }, { line: 6, logMessage: "seen {seen}" }],
    });
    expect(set.body.breakpoints.map((b) => b.verified)).toEqual([true, true]);
    const stopped = dc.waitForEvent("stopped");
    await dc.configurationDoneRequest();
    await dc.launchRequest({ program: hits, checkpoints: true } as any);
    const stop = (await stopped).body;
    expect(stop.reason).toBe("breakpoint");
    const threadId = stop.threadId;
    let frame = await topFrame(dc, threadId);
    expect([frame.name, frame.line]).toEqual(["visit", 5]);
    expect((await dc.evaluateRequest({ expression: "n", frameId: frame.id, context: "watch" })).body.result).toBe("2");
    await expect.poll(() => printed, { timeout: 15_000 }).toContain("seen 10\n");
    expect(printed).not.toContain("seen 20");

    const loaded: { path?: string }[] = (await dc.customRequest("loadedSources", {})).body.sources;
    expect(loaded.map((s) => s.path)).toContain(hits);

    // A step on, then back to the breakpoint's pause: the step never happened.
    await Promise.all([dc.nextRequest({ threadId }), dc.assertStoppedLocation("step", { line: 6 })]);
    frame = await topFrame(dc, threadId);
    expect((await dc.evaluateRequest({ expression: "seen", frameId: frame.id, context: "watch" })).body.result).toBe("20");
    const back = dc.waitForEvent("stopped");
    await dc.customRequest("reverseContinue", { threadId });
    expect((await back).body.threadId).toBe(threadId);
    frame = await topFrame(dc, threadId);
    expect([frame.name, frame.line]).toEqual(["visit", 5]);
    expect((await dc.evaluateRequest({ expression: "'seen' in dir()", frameId: frame.id, context: "watch" })).body.result).toBe("False");

    // The editor takes its breakpoints away; the program runs to its end, logging as it goes.
    await dc.setBreakpointsRequest({ source: { path: hits }, breakpoints: [] });
    await dc.continueRequest({ threadId });
    await expect.poll(() => printed, { timeout: 15_000 }).toContain("visited");
  } finally {
    await dc.stop();
  }
});

test("bad requests get DAP error responses and the adapter keeps answering", async () => {
  const dc = await adapter();
  try {
    const failures: [string, () => Promise<unknown>][] = [
      ["an unknown command", () => dc.customRequest("frobnicate", {})],
      ["a thread that is not paused", () => dc.stackTraceRequest({ threadId: 999 })],
      ["a stale frame", () => dc.scopesRequest({ frameId: 12345 })],
      ["a stale reference", () => dc.variablesRequest({ variablesReference: 777 })],
      ["wrong argument types", () => dc.customRequest("setBreakpoints", { source: 7 })],
      ["nothing paused to evaluate in", () => dc.evaluateRequest({ expression: "1 + 1" })],
      ["a step of no thread", () => dc.nextRequest({} as any)],
      ["a launch without a program", () => dc.launchRequest({ program: "" } as any)],
    ];
    for (const [what, send] of failures) {
      const error = await send().then(
        () => null,
        (e: Error) => e,
      );
      expect(error, what).not.toBeNull();
      expect(error!.message.length, what).toBeGreaterThan(0);
    }
    expect((await dc.threadsRequest()).success).toBe(true);
  } finally {
    await dc.stop();
  }
});
