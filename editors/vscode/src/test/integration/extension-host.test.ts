// The extension with the real vscode-languageclient and the real `perfls
// serve`, in a fake extension host (fakehost.ts): what a user of VS Code
// gets, short of VS Code's own window. Untrusted first (no measuring, the
// client's registered perfls.checkFile refused), then trust granted (the
// server restarts, the old process exits), then a Measure lens clicked with
// the status bar following perfls/status, then deactivation.
//
// The binary is $PERFLS_BIN, else built with `go build`; without either the
// test is skipped.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { URI } from 'vscode-uri';
import { installHost } from './fakehost';

const host = installHost();
// eslint-disable-next-line @typescript-eslint/no-var-requires
const ext = require('../../extension') as typeof import('../../extension');

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..', '..');
let tmp = '';
let bin = '';
let skip: string | false = false;
const savedEnv = { ...process.env };

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'perfls-vscode-host-'));
  bin = process.env.PERFLS_BIN ?? '';
  if (bin === '') {
    if (cp.spawnSync('go', ['version']).error) {
      skip = 'neither PERFLS_BIN nor go is available to get a perfls binary';
      return;
    }
    bin = path.join(tmp, 'perfls');
    const b = cp.spawnSync('go', ['build', '-o', bin, './cmd/perfls'], { cwd: repoRoot, encoding: 'utf8' });
    if (b.status !== 0) {
      throw new Error(`go build ./cmd/perfls failed:\n${b.stdout}${b.stderr}`);
    }
  }
  // The servers the extension starts inherit this process's environment: a
  // private cache, so the measurement daemon they start is this test's own.
  process.env.PERFLS_CACHE_DIR = path.join(tmp, 'cache');
  process.env.XDG_RUNTIME_DIR = path.join(tmp, 'run');
  fs.mkdirSync(process.env.XDG_RUNTIME_DIR, { mode: 0o700 });
});

after(() => {
  if (bin && tmp) {
    cp.spawnSync(bin, ['daemon', 'stop'], { env: process.env });
  }
  process.env = savedEnv;
  if (tmp) {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

/** until polls a condition that the server brings about; the test's timeout bounds it. */
async function until<T>(what: string, get: () => T | undefined | false): Promise<T> {
  for (;;) {
    const v = get();
    if (v !== undefined && v !== false) {
      return v;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('in a fake extension host with the real language client: untrusted, trusted, Measure, status bar, deactivate', { timeout: 600000 }, async (t) => {
  if (skip) {
    t.skip(skip);
    return;
  }
  const ws = path.join(tmp, 'quickstart');
  fs.cpSync(path.join(repoRoot, 'examples', 'quickstart'), ws, { recursive: true });
  const file = path.join(ws, 'src', 'main', 'java', 'quickstart', 'Search.java');
  const text = fs.readFileSync(file, 'utf8');
  const uri = URI.file(file).toString();
  host.config = { path: bin, alpha: 0.05, interpretation: 'auto', budgetSeconds: 0, measureOnSave: false, javaHome: '', jvmArgs: [], violationSeverity: 'warning', 'trace.server': 'off' };
  host.workspaceFolders = [{ uri: URI.file(ws), name: 'quickstart', index: 0 }];
  host.isTrusted = false;

  const perfls = await ext.activate({ subscriptions: [] } as never);
  try {
    assert.equal(host.statusItem.text, 'perfls: idle', host.output.join('\n'));
    assert.ok(host.output.some((l) => l.includes(`starting ${bin} serve (untrusted workspace: measuring off)`)), host.output.join('\n'));
    const [first] = perfls.serverProcessIds;
    assert.ok(first, 'a server process runs');
    // The client registered the server's commands next to ours, without a clash.
    for (const c of ['perfls.checkFormulas', 'perfls.measure', 'perfls.checkFile', 'perfls.restartServer', 'perfls.showOutput']) {
      assert.ok(host.commands.has(c), `command ${c}: ${[...host.commands.keys()]}`);
    }

    const doc = host.openDocument(file, text);
    await host.waitForDiagnostics(uri, () => true);
    const lines = text.split('\n');
    const decl = lines.findIndex((l) => l.includes('public static int binarySearch('));
    let lenses = await host.codeLenses(doc);
    assert.ok(lenses.some((l) => l.range.start.line === decl && /Check 1 formula/.test(l.command?.title ?? '')), JSON.stringify(lenses));
    assert.deepEqual(lenses.filter((l) => l.command?.command), [], 'untrusted: no lens runs anything');

    const hovers = await host.hover(doc, decl, lines[decl].indexOf('binarySearch') + 1);
    assert.equal(hovers.length, 1);
    const md = hovers[0].contents.map((c: { value?: string }) => c.value ?? String(c)).join('\n');
    assert.match(md, /linearSearch/);

    // The palette's "Check All Formulas in This File": refused before it reaches the server.
    host.vscode.window.activeTextEditor = { document: doc };
    await host.vscode.commands.executeCommand('perfls.checkFile');
    assert.ok(host.shown.some((s) => s.kind === 'warning' && /does not measure in an untrusted workspace/.test(s.message)), JSON.stringify(host.shown));

    // Trust: a new server with measuring allowed; the old process exits.
    host.isTrusted = true;
    host.trustGranted.fire();
    const [second] = await until('a new server', () => perfls.serverProcessIds.find((p) => p !== first) !== undefined && perfls.serverProcessIds);
    await until('the old server to exit', () => !alive(first));
    assert.notEqual(second, first);
    await until('the client to run again', () => host.statusItem.text === 'perfls: idle');
    // The new server learns of the open document from the client's
    // didOpen, which may arrive after its first status: ask until it
    // answers for the document (at most 5 s).
    let measure: (typeof lenses)[number] | undefined;
    for (let i = 0; i < 200 && !measure; i++) {
      lenses = await host.codeLenses(doc);
      measure = lenses.find((l) => l.command?.command === 'perfls.measure' && l.range.start.line === decl);
      if (!measure) {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    assert.ok(measure, `trusted: a Measure lens with its command: ${JSON.stringify(lenses.map((l) => l.command))}`);

    // A click on the lens: the status bar shows the job, then idle.
    host.statusTexts.length = 0;
    await host.vscode.commands.executeCommand(measure.command.command, ...(measure.command.arguments ?? []));
    await until('the status bar to show a running measurement', () => host.statusTexts.some((x) => /^\$\(pulse\) perfls: 1 running/.test(x)));
    await until('the status bar back to idle', () => host.statusTexts[host.statusTexts.length - 1] === 'perfls: idle' && host.statusTexts.some((x) => x.startsWith('$(pulse)')));
    t.diagnostic(`status bar: ${host.statusTexts.join(' → ')}`);
    // The measurement's figure as an inlay hint after the signature,
    // through the client's inlay hint provider (LSP 3.17).
    let figure: { position: { line: number }; label: unknown } | undefined;
    for (let i = 0; i < 200 && !figure; i++) {
      const hints = await host.inlayHints(doc, new host.vscode.Range(0, 0, lines.length, 0));
      figure = hints.find((h) => h.position.line === decl && /^≈ /.test(String(h.label)));
      if (!figure) {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    assert.ok(figure, 'an inlay hint with binarySearch\'s measured figure');
    t.diagnostic(`inlay hint: ${String(figure.label)}`);
    assert.deepEqual([...host.unknown].filter((u) => !u.startsWith('vscode.')), []);
  } finally {
    await ext.deactivate();
  }
  await until('every server process to exit', () => perfls.serverProcessIds.length === 0);
  t.diagnostic(`host APIs the client touched that the fake host does not model: ${[...host.unknown].join(', ') || 'none'}`);
});

// A multi-root workspace: one server for the window, told of every folder;
// a document of the second folder is linted and hovered in its own project
// (its own classes resolve, a mistyped method of its own is an error).
test('a multi-root workspace: the second folder is served like the first', { timeout: 300000 }, async (t) => {
  if (skip) {
    t.skip(skip);
    return;
  }
  const first = path.join(tmp, 'multi', 'quickstart');
  fs.cpSync(path.join(repoRoot, 'examples', 'quickstart'), first, { recursive: true });
  const second = path.join(tmp, 'multi', 'second');
  const file = path.join(second, 'src', 'main', 'java', 'two', 'Pair.java');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(path.join(second, 'pom.xml'), '<project/>\n');
  const text = [
    'package two;',
    'import dev.perfls.*;',
    'public class Pair {',
    '    @SPL("for n in {10} SELF[gen](n) <= two.Pair#slow[gen](n) & SELF[gen](n) <= two.Pair#slwo[gen](n)")',
    '    public static int fast(int[] a) { return a.length; }',
    '    public static int slow(int[] a) { int s = 0; for (int x : a) s += x; return s; }',
    '    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {new int[n]}); }',
    '}',
    '',
  ].join('\n');
  fs.writeFileSync(file, text);
  const uri = URI.file(file).toString();
  host.workspaceFolders = [
    { uri: URI.file(first), name: 'quickstart', index: 0 },
    { uri: URI.file(second), name: 'second', index: 1 },
  ];
  host.isTrusted = false;
  const perfls = await ext.activate({ subscriptions: [] } as never);
  try {
    assert.equal(perfls.serverProcessIds.length, 1, 'one server for the window');
    const doc = host.openDocument(file, text);
    const diags = await host.waitForDiagnostics(uri, (d) => d.some((x) => /slwo/.test(x.message)));
    assert.ok(diags.some((d) => /slwo/.test(d.message) && /did you mean slow/.test(d.message)), JSON.stringify(diags));
    assert.ok(!diags.some((d) => /two\.Pair#slow\b/.test(d.message) && !/slwo/.test(d.message)), 'the existing method resolves');
    const lines = text.split('\n');
    const at = lines[3].indexOf('two.Pair#slow') + 10;
    const hovers = await host.hover(doc, 3, at);
    const md = hovers.map((h: { contents: { value?: string }[] }) => h.contents.map((c) => c.value ?? String(c)).join('\n')).join('\n');
    assert.match(md, /static int slow\(int\[\] a\)/, md);

    // The quick fix of the misspelt method, through the client's code
    // action provider: kind quickfix, its edit replacing "slwo".
    const slwo = lines[3].indexOf('slwo');
    const actions = await host.codeActions(doc, new host.vscode.Range(3, slwo + 1, 3, slwo + 1));
    const fix = actions.find((a) => a.title === 'Change to slow');
    assert.ok(fix, JSON.stringify(actions.map((a) => a.title)));
    assert.equal(fix.kind?.value, 'quickfix');
    const edits = fix.edit?.changes.get(uri) ?? [];
    assert.deepEqual(edits.map((e) => [e.range.start.line, e.range.start.character, e.range.end.character, e.newText]), [[3, slwo, slwo + 4, 'slow']]);

    // Semantic tokens of the SPL, decoded with the legend the client
    // registered: the formula's methods and generators are classified.
    const tokens = await host.semanticTokens(doc);
    assert.ok(tokens, 'a semantic tokens provider');
    const names: string[] = [];
    let line = 0;
    let char = 0;
    for (let i = 0; i + 4 < tokens.data.length; i += 5) {
      char = tokens.data[i] === 0 ? char + tokens.data[i + 1] : tokens.data[i + 1];
      line += tokens.data[i];
      names.push(`${lines[line].slice(char, char + tokens.data[i + 2])}:${tokens.legend.tokenTypes[tokens.data[i + 3]]}`);
    }
    for (const want of ['SELF:keyword', 'gen:function', 'slow:method', 'slwo:method', '<=:operator', '10:number']) {
      assert.ok(names.includes(want), `token ${want} in ${names.join(' ')}`);
    }
  } finally {
    await ext.deactivate();
  }
  await until('the server to exit', () => perfls.serverProcessIds.length === 0);
});
