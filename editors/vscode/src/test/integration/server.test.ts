// The extension's wire contract against the real `perfls serve`, over stdio
// with vscode-languageserver-protocol (the library vscode-languageclient
// speaks through): initialize with the extension's initializationOptions,
// diagnostics, code lenses, hover, configuration changes, the trust gate on
// measuring commands, and a clean shutdown.
//
// The binary is $PERFLS_BIN, else built with `go build` from this
// repository; without either the test is skipped.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CodeLens,
  CodeLensRequest,
  createProtocolConnection,
  Diagnostic,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  ExitNotification,
  Hover,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  InitializeResult,
  ProtocolConnection,
  PublishDiagnosticsNotification,
  PublishDiagnosticsParams,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { configurationChange, serverOptions } from '../../settings';

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..', '..');
const quickstart = path.join(repoRoot, 'examples', 'quickstart');

// The defaults VS Code hands the extension when nothing is set (package.json's).
const defaultSettings: Record<string, unknown> = {
  alpha: 0.05, interpretation: 'auto', semantics: 'auto', budgetSeconds: 0, measureOnSave: false,
  javaHome: '', jvmArgs: [], violationSeverity: 'warning', lenses: ['measure', 'check'], path: '',
};
const reader = (v: Record<string, unknown>) => ({ get: <T>(k: string) => v[k] as T | undefined });

let tmp = '';
let bin = '';
let skip: string | false = false;

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'perfls-vscode-it-'));
  bin = process.env.PERFLS_BIN ?? '';
  if (bin === '') {
    const go = cp.spawnSync('go', ['version']);
    if (go.error) {
      skip = 'neither PERFLS_BIN nor go is available to get a perfls binary';
      return;
    }
    bin = path.join(tmp, 'perfls');
    const b = cp.spawnSync('go', ['build', '-o', bin, './cmd/perfls'], { cwd: repoRoot, encoding: 'utf8' });
    if (b.status !== 0) {
      throw new Error(`go build ./cmd/perfls failed:\n${b.stdout}${b.stderr}`);
    }
  }
});

after(() => {
  if (tmp) {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

/** Session is one running `perfls serve` with what it has sent us. */
class Session {
  readonly conn: ProtocolConnection;
  readonly proc: cp.ChildProcessWithoutNullStreams;
  readonly diagnostics: PublishDiagnosticsParams[] = [];
  readonly statuses: { running: number; queued: number; message: string }[] = [];
  readonly shown: string[] = [];
  stderr = '';
  private waiters: (() => void)[] = [];
  readonly exited: Promise<number | null>;
  /** The server's environment: a private cache, so its measurement daemon is this test's own. */
  readonly env: NodeJS.ProcessEnv = { ...process.env, PERFLS_CACHE_DIR: path.join(tmp, 'cache'), XDG_RUNTIME_DIR: path.join(tmp, 'run') };

  constructor(readonly workspace: string, readonly settings: Record<string, unknown>, readonly trusted: boolean) {
    this.proc = cp.spawn(bin, ['serve'], { cwd: workspace, env: this.env });
    this.proc.stderr.on('data', (d) => (this.stderr += String(d)));
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
    this.conn = createProtocolConnection(new StreamMessageReader(this.proc.stdout), new StreamMessageWriter(this.proc.stdin));
    const poke = () => this.waiters.splice(0).forEach((w) => w());
    this.conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
      this.diagnostics.push(p);
      poke();
    });
    this.conn.onNotification('perfls/status', (p: { running: number; queued: number; message: string }) => {
      this.statuses.push(p);
      poke();
    });
    this.conn.onNotification('window/showMessage', (p: { message: string }) => {
      this.shown.push(p.message);
      poke();
    });
    // What vscode-languageclient answers for these.
    this.conn.onRequest('window/workDoneProgress/create', () => null);
    this.conn.onRequest('workspace/codeLens/refresh', () => null);
    this.conn.onRequest('workspace/diagnostic/refresh', () => null);
    this.conn.onRequest('client/registerCapability', () => null);
    this.conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
      p.items.map((i) => (i.section === 'perfls' ? this.options() : null)));
    this.conn.listen();
  }

  options() {
    return serverOptions(reader(this.settings), this.trusted).options;
  }

  async initialize(): Promise<InitializeResult> {
    const uri = pathToFileURL(this.workspace).toString();
    const res = await this.request('initialize', this.conn.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: uri,
      workspaceFolders: [{ uri, name: path.basename(this.workspace) }],
      initializationOptions: this.options(),
      capabilities: {
        window: { workDoneProgress: true },
        workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true }, codeLens: { refreshSupport: true } },
        textDocument: {
          synchronization: { didSave: true },
          publishDiagnostics: { relatedInformation: true },
          codeLens: {},
          hover: { contentFormat: ['markdown', 'plaintext'] },
        },
      },
    }));
    await this.conn.sendNotification(InitializedNotification.type, {});
    return res;
  }

  /** request sends a request and fails, with the server's log, if no answer comes in time. */
  request<R>(what: string, p: Promise<R>, ms = 60000): Promise<R> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to ${what} in ${ms / 1000} s; server stderr:\n${this.stderr}`)), ms);
    });
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
  }

  /** waitFor resolves with the first value of get() that is not undefined. */
  waitFor<T>(what: string, get: () => T | undefined, ms = 60000): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; server stderr:\n${this.stderr}`)), ms);
      const check = () => {
        const v = get();
        if (v !== undefined) {
          clearTimeout(timer);
          resolve(v);
        } else {
          this.waiters.push(check);
        }
      };
      check();
    });
  }

  diagnosticsFor(uri: string, version: number): Promise<Diagnostic[]> {
    return this.waitFor(`diagnostics of ${uri} v${version}`, () => {
      const p = [...this.diagnostics].reverse().find((d) => d.uri === uri && (d.version === undefined || d.version >= version));
      return p?.diagnostics;
    });
  }

  /**
   * close shuts down as vscode-languageclient does: shutdown, exit, then the
   * client closes its end of the pipe. The server must then exit with 0.
   * Returns whether it had already exited on the exit notification alone.
   */
  async close(): Promise<boolean> {
    assert.equal(await this.request('shutdown', this.conn.sendRequest(ShutdownRequest.type)), null);
    await this.conn.sendNotification(ExitNotification.type);
    const early = await Promise.race([this.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]);
    this.proc.stdin.end();
    const code = await this.request('the server to exit', this.exited, 30000);
    this.conn.dispose();
    assert.equal(code, 0, `perfls serve exited with ${code}; stderr:\n${this.stderr}`);
    return early;
  }

  /** kill ends the server if a failed test left it running (SIGKILL: it may be mid-request). */
  kill(): void {
    this.conn.dispose();
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill('SIGKILL');
    }
    this.proc.stdin.destroy();
    this.proc.stdout.destroy();
    this.proc.stderr.destroy();
  }
}

function copyQuickstart(name: string): string {
  const ws = path.join(tmp, name);
  fs.cpSync(quickstart, ws, { recursive: true });
  return ws;
}

test('perfls serve speaks the extension\'s contract: diagnostics, code lenses, hover, settings, trust gate, shutdown', { timeout: 300000 }, async (t) => {
  if (skip) {
    t.skip(skip);
    return;
  }
  const ws = copyQuickstart('untrusted');
  const file = path.join(ws, 'src', 'main', 'java', 'quickstart', 'Search.java');
  const uri = pathToFileURL(file).toString();
  const text = fs.readFileSync(file, 'utf8');
  const s = new Session(ws, { ...defaultSettings }, false);
  try {
    const init = await s.initialize();
    assert.equal(init.serverInfo?.name, 'perfls');
    const commands = init.capabilities.executeCommandProvider?.commands ?? [];
    assert.ok(commands.includes('perfls.checkFormulas'), `commands ${commands}`);
    assert.ok(init.capabilities.hoverProvider, 'hover');
    assert.ok(init.capabilities.codeLensProvider, 'code lens');

    await s.conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'java', version: 1, text } });
    const diags = await s.diagnosticsFor(uri, 1);
    assert.deepEqual(diags.filter((d) => d.severity === 1), [], 'the quickstart has no formula errors');

    // One lens per @SPL method, on its declaration line.
    const lines = text.split('\n');
    const declLine = (name: string) => lines.findIndex((l) => l.includes(`public static int ${name}(`));
    const lenses: CodeLens[] = (await s.request('codeLens', s.conn.sendRequest(CodeLensRequest.type, { textDocument: { uri } }))) ?? [];
    const checks = lenses.filter((l) => /Check 1 formula/.test(l.command?.title ?? ''));
    assert.deepEqual(
      checks.map((l) => l.range.start.line).sort((a, b) => a - b),
      [declLine('binarySearch'), declLine('linearSearch')],
      `lenses: ${JSON.stringify(lenses)}`,
    );

    // Hover on binarySearch's name shows its formula.
    const nameLine = declLine('binarySearch');
    const col = lines[nameLine].indexOf('binarySearch') + 2;
    const hover: Hover | null = await s.request('hover', s.conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: nameLine, character: col } }));
    assert.ok(hover, 'hover on binarySearch');
    const md = typeof hover.contents === 'object' && 'value' in hover.contents ? hover.contents.value : JSON.stringify(hover.contents);
    assert.match(md, /linearSearch/, `hover: ${md}`);

    // A broken formula is reported as an error on its line.
    const broken = text.replace('SELF[lookups](n) <= quickstart.Search#linearSearch[lookups](n)")', 'SELF[lookups](n) <= quickstart.Search#linearSearch[lookups](n")');
    assert.notEqual(broken, text);
    await s.conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 2 }, contentChanges: [{ text: broken }] });
    const after = await s.waitFor('an error diagnostic', () => {
      const last = [...s.diagnostics].reverse().find((d) => d.uri === uri);
      return last && last.diagnostics.some((d) => d.severity === 1) ? last.diagnostics : undefined;
    });
    assert.equal(after.find((d) => d.severity === 1)?.range.start.line, declLine('binarySearch') - 1, 'on the @SPL line');
    await s.conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 3 }, contentChanges: [{ text }] });
    await s.waitFor('the error to clear', () => {
      const last = [...s.diagnostics].reverse().find((d) => d.uri === uri);
      return last && !last.diagnostics.some((d) => d.severity === 1) ? true : undefined;
    });

    // The untrusted workspace's measuring command is refused by the server too.
    const args = checks[0].command?.arguments ?? [{ uri, class: 'quickstart.Search', method: 'binarySearch', params: ['int[]', 'int'] }];
    await assert.rejects(
      s.request('executeCommand', s.conn.sendRequest(ExecuteCommandRequest.type, { command: 'perfls.checkFormulas', arguments: args })),
      (err: Error) => /measur|trust/i.test(err.message),
      'perfls.checkFormulas with allowMeasuring=false must be refused',
    );

    // Lenses carry no action while measuring is off.
    assert.deepEqual(lenses.filter((l) => l.command?.command).map((l) => l.command?.title), [], 'no lens runs anything in an untrusted workspace');

    // Settings pushed as the extension pushes them take effect: with the
    // options of a trusted workspace the lenses gain their commands, and
    // lose them again with the untrusted ones.
    const lensCommands = async () => {
      const got: CodeLens[] = (await s.request('codeLens', s.conn.sendRequest(CodeLensRequest.type, { textDocument: { uri } }))) ?? [];
      return got.map((l) => l.command?.command ?? '').filter((c) => c !== '').sort();
    };
    const trustedOptions = serverOptions(reader({ ...defaultSettings, alpha: 0.01 }), true).options;
    await s.conn.sendNotification(DidChangeConfigurationNotification.type, configurationChange(trustedOptions));
    // The default perfls.lenses: Measure and Check only.
    assert.deepEqual(await lensCommands(), ['perfls.checkFormulas', 'perfls.checkFormulas', 'perfls.measure', 'perfls.measure']);
    // perfls.lenses listing more adds them.
    const more = serverOptions(reader({ ...defaultSettings, lenses: ['measure', 'check', 'profile', 'calibrate'] }), true).options;
    await s.conn.sendNotification(DidChangeConfigurationNotification.type, configurationChange(more));
    assert.deepEqual(await lensCommands(), ['perfls.calibrate', 'perfls.calibrate', 'perfls.checkFormulas', 'perfls.checkFormulas', 'perfls.measure', 'perfls.measure', 'perfls.profile', 'perfls.profile']);
    await s.conn.sendNotification(DidChangeConfigurationNotification.type, configurationChange(s.options()));
    assert.deepEqual(await lensCommands(), []);

    if (!(await s.close())) {
      t.diagnostic('perfls serve exited only once its stdin closed, not on the exit notification alone');
    }
  } finally {
    s.kill();
  }
});

test('a .spl file gets its diagnostics; workspace folders are supported', { timeout: 120000 }, async (t) => {
  if (skip) {
    t.skip(skip);
    return;
  }
  const ws = copyQuickstart('spl');
  const file = path.join(ws, 'regressions.spl');
  const uri = pathToFileURL(file).toString();
  // The left side names a method the project does not have: an error on line 2.
  const text = 'lin := quickstart.Search#linearSearch\nfor n in {10} quickstart.Search#noSuchSearch[quickstart.Search#lookups](n) <= lin[quickstart.Search#lookups](n)\n';
  fs.writeFileSync(file, text);
  const s = new Session(ws, { ...defaultSettings }, true);
  try {
    const init = await s.initialize();
    assert.ok(init.capabilities.workspace?.workspaceFolders?.supported, 'workspace folders');
    assert.ok(init.capabilities.workspace?.workspaceFolders?.changeNotifications, 'workspace folder changes');
    await s.conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'spl', version: 1, text } });
    // The reference is reported once the workspace index is built (until
    // then unknown classes are not reported).
    const errors = await s.waitFor('an error diagnostic on the .spl file', () => {
      const last = [...s.diagnostics].reverse().find((d) => d.uri === uri);
      const errs = last?.diagnostics.filter((d) => d.severity === 1);
      return errs && errs.length > 0 ? errs : undefined;
    });
    assert.equal(errors[0].range.start.line, 1, `on the formula's line: ${JSON.stringify(errors)}`);
    assert.match(errors[0].message, /noSuchSearch/);
    await s.close();
  } finally {
    s.kill();
  }
});
