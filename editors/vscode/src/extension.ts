// Starts `streamform lsp` for a workspace that holds a streamform.yml, and
// hands it the project's SQL models and YAML files.
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const command = vscode.workspace.getConfiguration('streamform').get<string>('path') || 'streamform';
  const server: ServerOptions = { command, args: ['lsp'], transport: TransportKind.stdio };
  const options: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', pattern: '**/models/**/*.sql' },
      { scheme: 'file', pattern: '**/{streamform,sources}.yml' },
      { scheme: 'file', pattern: '**/tests/**/*.yml' },
    ],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/{streamform.yml,sources.yml,models/**/*.sql,tests/**/*.yml}') },
  };
  client = new LanguageClient('streamform', 'Streamform', server, options);
  context.subscriptions.push({ dispose: () => client?.stop() });
  await client.start();
}

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}
