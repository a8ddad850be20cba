// How VS Code reaches Breakroom's debug adapter for a launch configuration: the server's DAP
// port when `dapPort` is given, else `breakroom dap` (stdio), with the server's URL and token in
// its environment. Kept apart from the `vscode` API so it can be tested with plain node.

"use strict";

/** @returns {{kind: "server", port: number, host: string} | {kind: "executable", command: string, args: string[], env: Record<string, string>}} */
function adapterFor(configuration, environment) {
  const config = configuration || {};
  if (config.dapPort !== undefined && config.dapPort !== null) {
    const port = Number(config.dapPort);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`dapPort must be a TCP port (1-65535), not ${JSON.stringify(config.dapPort)}`);
    }
    return { kind: "server", port, host: "127.0.0.1" };
  }
  const env = {};
  const url = config.url || (environment || {}).BREAKROOM_URL;
  const token = config.token || (environment || {}).BREAKROOM_TOKEN;
  if (url) env.BREAKROOM_URL = url;
  if (token) env.BREAKROOM_TOKEN = token;
  return { kind: "executable", command: config.breakroomPath || "breakroom", args: ["dap"], env };
}

module.exports = { adapterFor };
