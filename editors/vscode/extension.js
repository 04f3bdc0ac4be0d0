// extension.js — starts `mls lsp` for .mls files (stdio) and hands it to VS Code's LSP client.
'use strict';
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('mls');
  const args = ['lsp'];
  const stdlib = config.get('stdlib');
  if (stdlib) args.push('--stdlib', stdlib);
  // No `transport`: the client would add --stdio, which mls accepts, but stdio is the default.
  const server = { command: config.get('path') || 'mls', args };
  client = new LanguageClient('mls', 'mls', { run: server, debug: server }, {
    documentSelector: [{ scheme: 'file', language: 'mls' }, { scheme: 'untitled', language: 'mls' }],
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
