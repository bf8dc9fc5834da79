// extension.ts against a fake `vscode` and a fake LanguageClient: what it
// starts, what it sends, what it shows.
import { afterEach, beforeEach, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FakeClient, installStubs } from './stubs';

const world = installStubs();
// Loaded after the stubs, so its `vscode` is the fake one.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const ext = require('../../extension') as typeof import('../../extension');

let dir: string;
let bin: string;
const context = () => ({ subscriptions: [] as { dispose(): unknown }[] });

beforeEach(() => {
  world.reset();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfls-ext-'));
  bin = path.join(dir, 'perfls');
  // Like `perfls serve`: runs until its stdin ends; says where it runs.
  fs.writeFileSync(bin, '#!/bin/sh\necho "cwd $(pwd)" >&2\ncat >/dev/null\n', { mode: 0o755 });
  world.config = { path: bin, alpha: 0.05, interpretation: 'auto', budgetSeconds: 0, measureOnSave: true, javaHome: '', jvmArgs: [], violationSeverity: 'warning' };
  world.workspaceFolders = [{ uri: { fsPath: dir } }];
});

afterEach(async () => {
  await ext.deactivate();
  fs.rmSync(dir, { recursive: true, force: true });
});

// settle lets queued restarts and configuration pushes run.
const settle = () => new Promise((r) => setTimeout(r, 10));

// until waits for a condition that a child process brings about; a
// minute without it fails the test instead of hanging the run.
async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!cond()) {
    if (Date.now() > deadline) {
      throw new Error(`gave up waiting for ${cond.toString()}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('activation starts `perfls serve` for Java files with the settings as initializationOptions', async () => {
  await ext.activate(context() as never);
  assert.equal(FakeClient.instances.length, 1);
  const c = FakeClient.instances[0];
  assert.equal(c.id, 'perfls', 'the id makes perfls.trace.server the trace setting');
  // The client starts the server through our function: `perfls serve` in the workspace folder.
  const child = await c.serverOptions();
  assert.deepEqual(child.spawnargs, [bin, 'serve']);
  await until(() => world.output.some((l) => l.includes(`cwd ${fs.realpathSync(dir)}`)));
  assert.deepEqual(c.clientOptions.documentSelector, [{ scheme: 'file', language: 'java' }, { scheme: 'file', language: 'spl' }]);
  assert.deepEqual(c.initOptions, {
    alpha: 0.05, interpretation: 'auto', budgetSeconds: 0, measureOnSave: true, javaHome: '', jvmArgs: [], violationSeverity: 'warning', allowMeasuring: true,
  });
  assert.ok(c.running);
  for (const id of ['perfls.restartServer', 'perfls.showOutput']) {
    assert.ok(world.commands.has(id), id);
  }
  // The server offers perfls.checkFile: the language client registers it, not us.
  assert.ok(!world.commands.has('perfls.checkFile'));
  assert.equal(world.statusItem.text, 'perfls: idle');
  assert.equal(world.statusItem.command, 'perfls.showOutput');
  assert.ok(world.statusItem.visible);
  assert.deepEqual(world.shown, []);
});

test('the status bar follows perfls/status; a click shows the output', async () => {
  await ext.activate(context() as never);
  const c = FakeClient.instances[0];
  c.notify('perfls/status', { running: 1, queued: 2, message: 'measuring quickstart.Search#binarySearch' });
  assert.equal(world.statusItem.text, '$(pulse) perfls: 1 running, 2 queued');
  assert.match(String(world.statusItem.tooltip), /measuring quickstart\.Search#binarySearch/);
  c.notify('perfls/status', { running: 0, queued: 0, message: 'idle' });
  assert.equal(world.statusItem.text, 'perfls: idle');
  await world.vscode.commands.executeCommand(world.statusItem.command);
  assert.equal(world.outputShown, 1);
});

test('an untrusted workspace starts with measuring off, refuses measuring commands, and restarts with measuring on when trusted', async () => {
  world.isTrusted = false;
  world.answer = (s) => (s.actions.includes('Manage Workspace Trust') ? 'Manage Workspace Trust' : undefined);
  await ext.activate(context() as never);
  const untrusted = FakeClient.instances[0];
  assert.equal(untrusted.initOptions.allowMeasuring, false);
  assert.equal(untrusted.initOptions.measureOnSave, false);

  // A code lens's command goes through the middleware and never reaches the server.
  let reached = 0;
  const next = () => ++reached;
  const exec = untrusted.clientOptions.middleware.executeCommand;
  assert.equal(await exec('perfls.checkFormulas', [{ uri: 'file:///a/A.java', class: 'p.A', method: 'a', params: [] }], next), undefined);
  assert.equal(reached, 0);
  assert.equal(world.shown.length, 1);
  assert.match(world.shown[0].message, /does not measure in an untrusted workspace/);
  assert.deepEqual(world.executed.map((e) => e.command), ['workbench.trust.manage']);

  world.isTrusted = true;
  world.trustGranted.fire();
  await settle();
  assert.equal(FakeClient.instances.length, 2, 'trust granted: the server is restarted');
  assert.ok(untrusted.disposed);
  const trusted = FakeClient.instances[1];
  assert.equal(trusted.initOptions.allowMeasuring, true);
  assert.equal(trusted.initOptions.measureOnSave, true);
  await trusted.clientOptions.middleware.executeCommand('perfls.checkFormulas', [{}], next);
  assert.equal(reached, 1);
});

test('perfls.checkFile from the palette checks the active Java editor', async () => {
  await ext.activate(context() as never);
  const exec = FakeClient.instances[0].clientOptions.middleware.executeCommand;
  const calls: unknown[][] = [];
  const next = (command: string, args: unknown[]) => calls.push([command, args]);

  world.activeTextEditor = { document: { languageId: 'plaintext', uri: { toString: () => 'file:///x.txt' } } };
  await exec('perfls.checkFile', [], next);
  assert.equal(calls.length, 0);
  assert.match(world.shown[0].message, /open a Java file/);

  world.activeTextEditor = { document: { languageId: 'java', uri: { toString: () => 'file:///w/Search.java' } } };
  await exec('perfls.checkFile', [], next);
  assert.deepEqual(calls, [['perfls.checkFile', [{ uri: 'file:///w/Search.java' }]]]);
  // A lens that names its document keeps its own argument.
  await exec('perfls.checkFile', [{ uri: 'file:///w/Other.java' }], next);
  assert.deepEqual(calls[1], ['perfls.checkFile', [{ uri: 'file:///w/Other.java' }]]);
});

test('changed settings are pushed as didChangeConfiguration {settings: {perfls}}; a changed path restarts', async () => {
  await ext.activate(context() as never);
  const c = FakeClient.instances[0];
  world.changeSettings({ alpha: 0.01, jvmArgs: ['-Xmx1g'] });
  await settle();
  assert.equal(c.sent.length, 1);
  assert.equal(c.sent[0].method, 'workspace/didChangeConfiguration');
  assert.equal(c.sent[0].params.settings.perfls.alpha, 0.01);
  assert.deepEqual(c.sent[0].params.settings.perfls.jvmArgs, ['-Xmx1g']);
  assert.equal(c.sent[0].params.settings.perfls.allowMeasuring, true);

  world.changeSettings({ alpha: 7 });
  await settle();
  assert.ok(!('alpha' in c.sent[1].params.settings.perfls), 'an invalid alpha is not sent');
  assert.ok(world.output.some((l) => /perfls\.alpha must be a number in \(0, 0\.5\]/.test(l)), world.output.join('\n'));

  const bin2 = path.join(dir, 'perfls2');
  fs.copyFileSync(bin, bin2);
  fs.chmodSync(bin2, 0o755);
  world.changeSettings({ path: bin2 });
  await settle();
  assert.equal(FakeClient.instances.length, 2);
  assert.ok(c.disposed);
  const child = await FakeClient.instances[1].serverOptions();
  assert.deepEqual(child.spawnargs, [bin2, 'serve']);
});

test('a restart by the language client itself (after a crash) sends the current settings', async () => {
  await ext.activate(context() as never);
  const c = FakeClient.instances[0];
  assert.equal(c.initOptions.alpha, 0.05);
  world.config.alpha = 0.2;
  assert.equal(c.initOptions.alpha, 0.2, 'initializationOptions are evaluated per initialize');
});

test('a server that pulls workspace/configuration gets the trust-gated options', async () => {
  world.isTrusted = false;
  await ext.activate(context() as never);
  const mw = FakeClient.instances[0].clientOptions.middleware.workspace.configuration;
  const got = await mw({ items: [{ section: 'perfls' }, { section: 'editor' }] }, {}, async () => [{ measureOnSave: true }, { tabSize: 4 }]);
  assert.equal(got[0].allowMeasuring, false);
  assert.equal(got[0].measureOnSave, false);
  assert.deepEqual(got[1], { tabSize: 4 });
});

test('a missing binary: a clear error with a fix, the status says so, perfls.checkFile explains', async () => {
  world.config.path = path.join(dir, 'nope', 'perfls');
  world.answer = (s) => (s.actions.includes('Open Settings') ? 'Open Settings' : undefined);
  await ext.activate(context() as never);
  assert.equal(FakeClient.instances.length, 0);
  assert.equal(world.shown.length, 1);
  assert.equal(world.shown[0].kind, 'error');
  assert.match(world.shown[0].message, /perfls\.path is set to ".*nope\/perfls", which is not an executable file/);
  assert.deepEqual(world.shown[0].actions, ['Open Settings', 'Show Output']);
  await settle();
  assert.deepEqual(world.executed[0], { command: 'workbench.action.openSettings', args: ['perfls.path'] });
  assert.equal(world.statusItem.text, '$(error) perfls: not found');

  await world.vscode.commands.executeCommand('perfls.checkFile');
  assert.equal(world.shown.length, 2);
  assert.match(world.shown[1].message, /not an executable file/);

  // Fixing the setting starts the server and hands perfls.checkFile back to it.
  world.changeSettings({ path: bin });
  await settle();
  assert.equal(FakeClient.instances.length, 1);
  assert.ok(!world.commands.has('perfls.checkFile'));
  assert.equal(world.statusItem.text, 'perfls: idle');
});

test('a server without perfls.checkFile: the command explains instead of failing silently', async () => {
  FakeClient.serverCommands = ['perfls.checkFormulas'];
  await ext.activate(context() as never);
  await world.vscode.commands.executeCommand('perfls.checkFile');
  assert.match(world.shown[0].message, /does not offer perfls\.checkFile; update it/);
});

test('a server that fails to start: stopped status and an error offering the output', async () => {
  FakeClient.failStart = new Error('spawn EACCES');
  world.answer = () => 'Show Output';
  await ext.activate(context() as never);
  assert.equal(world.statusItem.text, '$(circle-slash) perfls: stopped');
  assert.match(world.shown[0].message, /failed to start: spawn EACCES/);
  await settle();
  assert.equal(world.outputShown, 1);
});

test('perfls.restartServer replaces the client and ends the old server process; deactivate stops it', async () => {
  await ext.activate(context() as never);
  const old = await FakeClient.instances[0].serverOptions();
  const exited = new Promise<number | null>((r) => old.on('exit', (code: number | null) => r(code)));
  await world.vscode.commands.executeCommand('perfls.restartServer');
  assert.equal(await exited, 0, 'the old server saw its stdin end and exited');
  assert.equal(FakeClient.instances.length, 2);
  assert.ok(FakeClient.instances[0].disposed);
  assert.ok(FakeClient.instances[1].running);
  // The old client's late notifications no longer move the status bar.
  FakeClient.instances[0].notificationHandlers.get('perfls/status')?.({ running: 5, queued: 0 });
  assert.equal(world.statusItem.text, 'perfls: idle');
  await ext.deactivate();
  assert.ok(FakeClient.instances[1].disposed);
  assert.ok(!world.commands.has('perfls.restartServer'));
});

test('a binary that cannot be executed: starting it fails with the reason', async () => {
  fs.writeFileSync(bin, '#!/nonexistent/interpreter\n', { mode: 0o755 });
  await ext.activate(context() as never);
  await assert.rejects(FakeClient.instances[0].serverOptions(), /cannot run .*perfls: spawn .*ENOENT/);
});
