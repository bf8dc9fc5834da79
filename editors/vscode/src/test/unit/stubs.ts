// Stand-ins for the `vscode` module and for vscode-languageclient/node, so
// extension.ts runs in plain Node: the tests drive its events and read what
// it did. installStubs() must run before extension.js is first required.

/* eslint-disable @typescript-eslint/no-explicit-any */
import Module = require('module');

type Listener<T> = (e: T) => any;

export class Emitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (l: Listener<T>) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      l(e);
    }
  }
  get count(): number {
    return this.listeners.length;
  }
}

export interface Shown {
  kind: 'error' | 'warning' | 'info';
  message: string;
  actions: string[];
}

/** FakeClient records how the extension uses a LanguageClient. */
export class FakeClient {
  static instances: FakeClient[] = [];
  static failStart: Error | undefined;
  static serverCommands: string[] = ['perfls.checkFormulas', 'perfls.measure', 'perfls.checkFile'];

  readonly notificationHandlers = new Map<string, (p: any) => void>();
  readonly sent: { method: string; params: any }[] = [];
  readonly stateChanges = new Emitter<{ oldState: number; newState: number }>();
  running = false;
  disposed = false;
  initializeResult: any;

  readonly serverOptions: any;

  constructor(
    readonly id: string,
    readonly name: string,
    serverOptions: any,
    readonly clientOptions: any,
  ) {
    // As vscode-languageclient does with a process the extension starts:
    // its stderr goes to the client's outputChannel.
    this.serverOptions = async () => {
      const child = await serverOptions();
      child.stderr?.on('data', (d: unknown) => clientOptions.outputChannel?.append(String(d)));
      return child;
    };
    FakeClient.instances.push(this);
  }
  /** The initializationOptions a (re)start sends: the option may be a value or a function. */
  get initOptions(): any {
    const o = this.clientOptions.initializationOptions;
    return typeof o === 'function' ? o() : o;
  }
  get onDidChangeState() {
    return this.stateChanges.event;
  }
  onNotification(method: string, handler: (p: any) => void) {
    this.notificationHandlers.set(method, handler);
    return { dispose: () => this.notificationHandlers.delete(method) };
  }
  async start(): Promise<void> {
    this.stateChanges.fire({ oldState: 1, newState: 3 });
    if (FakeClient.failStart) {
      this.stateChanges.fire({ oldState: 3, newState: 1 });
      throw FakeClient.failStart;
    }
    this.running = true;
    this.initializeResult = { capabilities: { executeCommandProvider: { commands: [...FakeClient.serverCommands] } } };
    this.stateChanges.fire({ oldState: 3, newState: 2 });
  }
  isRunning(): boolean {
    return this.running;
  }
  async sendNotification(method: string, params: any): Promise<void> {
    this.sent.push({ method, params });
  }
  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.running) {
      this.running = false;
      this.stateChanges.fire({ oldState: 2, newState: 1 });
    }
  }
  /** notify delivers a server notification as the real client would. */
  notify(method: string, params: any): void {
    const h = this.notificationHandlers.get(method);
    if (!h) {
      throw new Error(`no handler for ${method}`);
    }
    h(params);
  }
}

/** World is the fake editor: settings, trust, editors, and what the extension showed. */
export class World {
  config: Record<string, unknown> = {};
  isTrusted = true;
  workspaceFolders: { uri: { fsPath: string } }[] | undefined;
  activeTextEditor: any;
  readonly commands = new Map<string, (...args: any[]) => any>();
  readonly executed: { command: string; args: any[] }[] = [];
  readonly shown: Shown[] = [];
  readonly output: string[] = [];
  outputShown = 0;
  /** answer picks the button the user clicks on a message; undefined = dismissed. */
  answer: (s: Shown) => string | undefined = () => undefined;
  readonly statusItem = { text: '', tooltip: '' as any, command: '' as any, name: '', visible: false, show() { this.visible = true; }, hide() { this.visible = false; }, dispose() { this.visible = false; } };
  readonly trustGranted = new Emitter<void>();
  readonly configChanged = new Emitter<{ affectsConfiguration(section: string): boolean }>();

  reset(): void {
    this.config = {};
    this.isTrusted = true;
    this.workspaceFolders = undefined;
    this.activeTextEditor = undefined;
    this.commands.clear();
    this.executed.length = 0;
    this.shown.length = 0;
    this.output.length = 0;
    this.outputShown = 0;
    this.answer = () => undefined;
    this.statusItem.text = '';
    this.statusItem.visible = false;
    FakeClient.instances = [];
    FakeClient.failStart = undefined;
    FakeClient.serverCommands = ['perfls.checkFormulas', 'perfls.measure', 'perfls.checkFile'];
  }

  /** changeSettings sets values and fires onDidChangeConfiguration for their keys. */
  changeSettings(values: Record<string, unknown>): void {
    Object.assign(this.config, values);
    const keys = Object.keys(values).map((k) => 'perfls.' + k);
    this.configChanged.fire({ affectsConfiguration: (s: string) => keys.some((k) => k === s || k.startsWith(s + '.')) });
  }

  private show(kind: Shown['kind'], message: string, actions: string[]): Promise<string | undefined> {
    const s = { kind, message, actions };
    this.shown.push(s);
    return Promise.resolve(this.answer(s));
  }

  readonly vscode = {
    StatusBarAlignment: { Left: 1, Right: 2 },
    window: {
      createOutputChannel: (_name: string) => ({
        appendLine: (l: string) => this.output.push(l),
        append: (l: string) => this.output.push(l),
        show: () => this.outputShown++,
        dispose: () => undefined,
      }),
      createStatusBarItem: () => this.statusItem,
      showErrorMessage: (m: string, ...a: string[]) => this.show('error', m, a),
      showWarningMessage: (m: string, ...a: string[]) => this.show('warning', m, a),
      showInformationMessage: (m: string, ...a: string[]) => this.show('info', m, a),
      get activeTextEditor() {
        return world.activeTextEditor;
      },
    },
    workspace: {
      getConfiguration: (section: string) => ({
        get: (key: string) => this.config[key],
        section,
      }),
      get isTrusted() {
        return world.isTrusted;
      },
      get workspaceFolders() {
        return world.workspaceFolders;
      },
      onDidGrantWorkspaceTrust: this.trustGranted.event,
      onDidChangeConfiguration: this.configChanged.event,
    },
    commands: {
      registerCommand: (id: string, fn: (...args: any[]) => any) => {
        if (this.commands.has(id)) {
          throw new Error(`command '${id}' already exists`);
        }
        this.commands.set(id, fn);
        return { dispose: () => this.commands.get(id) === fn && this.commands.delete(id) };
      },
      executeCommand: async (command: string, ...args: any[]) => {
        this.executed.push({ command, args });
        const fn = this.commands.get(command);
        return fn ? fn(...args) : undefined;
      },
    },
  };

  readonly languageclient = {
    LanguageClient: FakeClient,
    State: { Stopped: 1, Running: 2, Starting: 3 },
    TransportKind: { stdio: 0, ipc: 1, pipe: 2, socket: 3 },
  };
}

export const world = new World();

let installed = false;

/** installStubs makes require('vscode') and require('vscode-languageclient/node') return the world's fakes. */
export function installStubs(): World {
  if (installed) {
    return world;
  }
  installed = true;
  const fakes: Record<string, unknown> = { vscode: world.vscode, 'vscode-languageclient/node': world.languageclient };
  const M = Module as any;
  const resolve = M._resolveFilename;
  M._resolveFilename = function (request: string, ...rest: any[]) {
    if (request in fakes) {
      return `fake:${request}`;
    }
    return resolve.call(this, request, ...rest);
  };
  for (const [name, exports] of Object.entries(fakes)) {
    const m = new M(`fake:${name}`);
    m.filename = `fake:${name}`;
    m.loaded = true;
    m.exports = exports;
    require.cache[`fake:${name}`] = m;
  }
  return world;
}
