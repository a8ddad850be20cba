// The `breakroom` debug type: VS Code only accepts an adapter for a type an extension
// registers. The adapter itself is the Breakroom server's (see adapter.js).

"use strict";

const vscode = require("vscode");
const { adapterFor } = require("./adapter");

function activate(context) {
  const factory = {
    createDebugAdapterDescriptor(session) {
      const adapter = adapterFor(session.configuration, process.env);
      if (adapter.kind === "server") {
        return new vscode.DebugAdapterServer(adapter.port, adapter.host);
      }
      return new vscode.DebugAdapterExecutable(adapter.command, adapter.args, { env: adapter.env });
    },
  };
  context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory("breakroom", factory));
}

function deactivate() {}

module.exports = { activate, deactivate };
