"use strict";

const test = require("node:test");
const assert = require("node:assert");
const { adapterFor } = require("../adapter");

test("without a port the adapter is `breakroom dap`, told the server's URL and token", () => {
  const adapter = adapterFor({ type: "breakroom", request: "attach" }, { BREAKROOM_URL: "http://127.0.0.1:5174" });
  assert.deepStrictEqual(adapter, {
    kind: "executable",
    command: "breakroom",
    args: ["dap"],
    env: { BREAKROOM_URL: "http://127.0.0.1:5174" },
  });
  const custom = adapterFor({ breakroomPath: "/opt/breakroom", url: "http://h:1", token: "t" }, {});
  assert.deepStrictEqual(custom.env, { BREAKROOM_URL: "http://h:1", BREAKROOM_TOKEN: "t" });
  assert.strictEqual(custom.command, "/opt/breakroom");
});

test("a dapPort connects to the server's DAP port on loopback", () => {
  assert.deepStrictEqual(adapterFor({ dapPort: 4711 }, {}), { kind: "server", port: 4711, host: "127.0.0.1" });
});

test("a port that is not one is refused with the reason", () => {
  assert.throws(() => adapterFor({ dapPort: "nope" }, {}), /dapPort must be a TCP port/);
  assert.throws(() => adapterFor({ dapPort: 70000 }, {}), /dapPort must be a TCP port/);
});
