// The perfls VS Code extension: starts `perfls serve` for Java files through
// vscode-languageclient, passes the perfls.* settings to it, keeps measuring
// off in untrusted workspaces, and shows the measurement queue in the status
// bar. The decisions (settings mapping, trust, status text, finding the
// binary) live in the vscode-free modules beside this one.

import * as cp from 'child_process';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions as ProcessOptions, State, TransportKind } from 'vscode-languageclient/node';
import { configurationChange, serverOptions, ServerOptions } from './settings';
import { resolveServer } from './serverPath';
import { NOT_FOUND, QueueStatus, STARTING, STATUS_NOTIFICATION, statusView, StatusView, STOPPED } from './status';
import { isBlocked, UNTRUSTED_MESSAGE } from './trust';

export const CHECK_FILE = 'perfls.checkFile';

/**
 * The documents perfls serves: Java sources and standalone .spl formula
 * files. One server serves every folder of a multi-root workspace (it
 * announces workspace-folder support; the client sends the folders).
 */
export const DOCUMENT_SELECTOR = [
  { scheme: 'file', language: 'java' },
  { scheme: 'file', language: 'spl' },
];

/** Perfls owns the language client, the output channel and the status-bar item of one window. */
export class Perfls implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly output: vscode.OutputChannel;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  /** Our own perfls.checkFile, registered only while the server does not provide it. */
  private fallbackCheckFile: vscode.Disposable | undefined;
  /** Starts, stops and configuration pushes run one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  private lastStatus: QueueStatus | undefined;
  private disposed = false;
  /** Server processes we started that have not exited yet. */
  private readonly processes = new Set<cp.ChildProcess>();

  constructor() {
    this.output = vscode.window.createOutputChannel('perfls');
    this.statusItem = vscode.window.createStatusBarItem('perfls.status', vscode.StatusBarAlignment.Left, 0);
    this.statusItem.name = 'perfls';
    this.statusItem.command = 'perfls.showOutput';
    this.setStatus(STARTING);
    this.statusItem.show();
    this.disposables.push(
      this.output,
      this.statusItem,
      vscode.commands.registerCommand('perfls.restartServer', () => this.restart()),
      vscode.commands.registerCommand('perfls.showOutput', () => this.output.show(true)),
      vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log('the workspace is now trusted: restarting perfls with measuring allowed');
        void this.restart();
      }),
    );
  }

  /** Process ids of the server processes this window started that are still running. */
  get serverProcessIds(): number[] {
    return [...this.processes].map((p) => p.pid).filter((p): p is number => p !== undefined);
  }

  /** The options the server gets now: the settings, with measuring off unless the workspace is trusted. */
  options(): ServerOptions {
    const { options, problems } = serverOptions(vscode.workspace.getConfiguration('perfls'), vscode.workspace.isTrusted);
    for (const p of problems) {
      this.log(p);
    }
    return options;
  }

  /** restart stops the server (if any) and starts it again with the current settings and trust. */
  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.stopClient();
      if (!this.disposed) {
        await this.startClient();
      }
    });
  }

  /** stop stops the server; the extension stays loaded (restart starts it again). */
  stop(): Promise<void> {
    return this.enqueue(() => this.stopClient());
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop();
    this.fallbackCheckFile?.dispose();
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.queue.then(step, step);
    this.queue = run.catch((err) => this.log(`perfls: ${describe(err)}`));
    return run;
  }

  private async startClient(): Promise<void> {
    this.disposeFallback();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const found = resolveServer(vscode.workspace.getConfiguration('perfls').get<string>('path'), folder);
    if ('error' in found) {
      this.log(found.error);
      this.setStatus(NOT_FOUND);
      this.registerFallback(found.error);
      void this.showError(found.error, true);
      return;
    }
    const trusted = vscode.workspace.isTrusted;
    this.log(`starting ${found.path} serve${trusted ? '' : ' (untrusted workspace: measuring off)'}`);
    // We start the process ourselves so that stopping can close its stdin:
    // `perfls serve` exits at end of input. The language client's own stop
    // sends exit and, 2 s later, SIGTERM; perfls does not exit on exit alone
    // while its stdin is open, and ignores SIGTERM before exit.
    const processOptions: ProcessOptions = async () => {
      const child = cp.spawn(found.path, ['serve'], { cwd: folder, stdio: 'pipe' });
      if (child.pid === undefined) {
        const err = await new Promise<Error>((resolve) => child.once('error', resolve));
        throw new Error(`cannot run ${found.path}: ${err.message}`);
      }
      // The language client copies the stderr of a process it is given
      // into outputChannel: a listener of ours would print every line twice.
      child.on('error', (err) => this.log(`perfls: ${err.message}`));
      this.processes.add(child);
      child.on('exit', () => this.processes.delete(child));
      return child;
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      // A function: the client calls it on every (re)start, so a server
      // that crashed and was restarted gets the current settings and trust.
      initializationOptions: () => this.options(),
      outputChannel: this.output,
      middleware: {
        executeCommand: (command, args, next) => this.executeCommand(command, args, next),
        workspace: {
          // A server that pulls its settings gets the same options it was
          // started with (trust applied), not the raw settings.
          configuration: async (params, token, next) => {
            const got = await next(params, token);
            if (!Array.isArray(got)) {
              return got;
            }
            return params.items.map((item, i) => (item.section === 'perfls' ? this.options() : got[i]));
          },
        },
      },
    };
    const client = new LanguageClient('perfls', 'perfls', processOptions, clientOptions);
    this.client = client;
    this.lastStatus = undefined;
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Running) {
        this.setStatus(statusView(this.lastStatus, vscode.workspace.isTrusted));
      } else if (e.newState === State.Starting) {
        this.setStatus(STARTING);
      } else {
        this.setStatus(STOPPED);
      }
    });
    client.onNotification(STATUS_NOTIFICATION, (p: QueueStatus) => {
      if (this.client === client) {
        this.lastStatus = p;
        this.setStatus(statusView(p, vscode.workspace.isTrusted));
      }
    });
    try {
      await client.start();
    } catch (err) {
      const msg = `perfls: the language server ${found.path} failed to start: ${describe(err)}`;
      this.log(msg);
      this.setStatus(STOPPED);
      this.registerFallback(msg);
      void this.showError(msg, false);
      return;
    }
    const commands = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    if (!commands.includes(CHECK_FILE)) {
      this.registerFallback(`perfls: the server ${found.path} does not offer ${CHECK_FILE}; update it (go install ./cmd/perfls in a clone of perfls).`);
    }
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.lastStatus = undefined;
    if (!client) {
      return;
    }
    try {
      await client.dispose(5000);
    } catch (err) {
      this.log(`perfls: stopping the server: ${describe(err)}`);
    }
    this.endProcesses();
    this.setStatus(STOPPED);
  }

  /**
   * endProcesses closes the stdin of every server process still running, so
   * it exits, and kills any that has not exited 10 s later.
   */
  private endProcesses(): void {
    for (const child of this.processes) {
      this.processes.delete(child);
      child.stdin?.end();
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) {
          this.log(`perfls: server process ${child.pid} did not exit: killing it`);
          child.kill('SIGKILL');
        }
      }, 10000);
      timer.unref();
      child.once('exit', () => clearTimeout(timer));
    }
  }

  /**
   * executeCommand sits between every server command (code lenses, the
   * command palette) and the server: measuring commands are refused in an
   * untrusted workspace, and perfls.checkFile run from the palette gets the
   * active editor's document.
   */
  private async executeCommand(command: string, args: unknown[], next: (command: string, args: unknown[]) => unknown): Promise<unknown> {
    if (isBlocked(command, vscode.workspace.isTrusted)) {
      const choice = await vscode.window.showWarningMessage(UNTRUSTED_MESSAGE, 'Manage Workspace Trust');
      if (choice === 'Manage Workspace Trust') {
        await vscode.commands.executeCommand('workbench.trust.manage');
      }
      return undefined;
    }
    if (command === CHECK_FILE && (!args || args.length === 0)) {
      const uri = this.activeJavaUri();
      if (!uri) {
        void vscode.window.showInformationMessage('perfls: open a Java file to check its formulas.');
        return undefined;
      }
      args = [{ uri }];
    }
    return next(command, args);
  }

  private activeJavaUri(): string | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || doc.languageId !== 'java') {
      return undefined;
    }
    return doc.uri.toString();
  }

  private configurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('perfls')) {
      return;
    }
    if (e.affectsConfiguration('perfls.path')) {
      this.log('perfls.path changed: restarting the server');
      void this.restart();
      return;
    }
    void this.enqueue(async () => {
      const client = this.client;
      if (client && client.isRunning()) {
        await client.sendNotification('workspace/didChangeConfiguration', configurationChange(this.options()));
      }
    });
  }

  private registerFallback(reason: string): void {
    this.disposeFallback();
    try {
      this.fallbackCheckFile = vscode.commands.registerCommand(CHECK_FILE, () => this.showError(reason, false));
    } catch (err) {
      // The language client still holds the server's command: it reports itself.
      this.log(`perfls: ${describe(err)}`);
    }
  }

  private disposeFallback(): void {
    this.fallbackCheckFile?.dispose();
    this.fallbackCheckFile = undefined;
  }

  private async showError(message: string, offerSettings: boolean): Promise<void> {
    const actions = offerSettings ? ['Open Settings', 'Show Output'] : ['Show Output'];
    const choice = await vscode.window.showErrorMessage(message, ...actions);
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'perfls.path');
    } else if (choice === 'Show Output') {
      this.output.show(true);
    }
  }

  private setStatus(v: StatusView): void {
    this.statusItem.text = v.text;
    this.statusItem.tooltip = v.tooltip;
  }

  private log(line: string): void {
    this.output.appendLine(line);
  }
}

let current: Perfls | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<Perfls> {
  const perfls = new Perfls();
  current = perfls;
  context.subscriptions.push({ dispose: () => void perfls.dispose() });
  await perfls.restart();
  return perfls;
}

export async function deactivate(): Promise<void> {
  const perfls = current;
  current = undefined;
  await perfls?.dispose();
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
