// Starts `pipec lsp` for .pipe files (stdio) with vscode-languageclient.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
    const pipec = vscode.workspace.getConfiguration("pipe").get("pipecPath") || "pipec";
    const server = { command: pipec, args: ["lsp"] };
    client = new LanguageClient("pipec", "pipec lsp", server, {
        documentSelector: [{ scheme: "file", language: "pipe" }, { scheme: "untitled", language: "pipe" }],
    });
    context.subscriptions.push(client);
    return client.start();
}

function deactivate() {
    return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
