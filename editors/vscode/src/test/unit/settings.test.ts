import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { configurationChange, serverOptions } from '../../settings';

const reader = (values: Record<string, unknown>) => ({ get: <T>(k: string) => values[k] as T | undefined });

// The defaults VS Code reports when nothing is set (package.json's).
const defaults = {
  alpha: 0.05,
  interpretation: 'auto',
  semantics: 'auto',
  budgetSeconds: 0,
  measureOnSave: false,
  javaHome: '',
  jvmArgs: [],
  cpus: '',
  violationSeverity: 'warning',
  remote: false,
  remoteLabel: '',
  lenses: ['measure', 'check'],
  inlayHints: true,
  path: '',
};

test('defaults map to the contract keys with measuring allowed in a trusted workspace', () => {
  const { options, problems } = serverOptions(reader(defaults), true, '/home/u');
  assert.deepEqual(problems, []);
  assert.deepEqual(options, {
    alpha: 0.05,
    interpretation: 'auto',
    semantics: 'auto',
    budgetSeconds: 0,
    measureOnSave: false,
    javaHome: '',
    jvmArgs: [],
    cpus: '',
    violationSeverity: 'warning',
    allowMeasuring: true,
    remote: false,
    remoteLabel: '',
    lenses: ['measure', 'check'],
    inlayHints: true,
  });
  assert.ok(!('path' in options), 'perfls.path is the client\'s, not the server\'s');
});

test('set values pass through; ~ in javaHome expands; blank JVM flags are dropped', () => {
  const { options, problems } = serverOptions(
    reader({ ...defaults, alpha: 0.01, interpretation: 'rank', semantics: 'classic', budgetSeconds: 90, measureOnSave: true, javaHome: ' ~/jdk-17 ', jvmArgs: ['-Xmx2g', ' ', '-XX:+UseG1GC'], violationSeverity: 'error' }),
    true,
    '/home/u',
  );
  assert.deepEqual(problems, []);
  assert.equal(options.alpha, 0.01);
  assert.equal(options.interpretation, 'rank');
  assert.equal(options.semantics, 'classic');
  assert.equal(options.budgetSeconds, 90);
  assert.equal(options.measureOnSave, true);
  assert.equal(options.javaHome, '/home/u/jdk-17');
  assert.deepEqual(options.jvmArgs, ['-Xmx2g', '-XX:+UseG1GC']);
  assert.equal(options.violationSeverity, 'error');
});

test('a processor list passes trimmed; anything else is a problem and pins nothing', () => {
  assert.equal(serverOptions(reader({ ...defaults, cpus: ' 0-1,3 ' }), true).options.cpus, '0-1,3');
  for (const bad of ['a', '1-', 7]) {
    const { options, problems } = serverOptions(reader({ ...defaults, cpus: bad }), true);
    assert.ok(!('cpus' in options), `cpus ${bad} sent`);
    assert.match(problems.join('\n'), /perfls.cpus must be a processor list/);
  }
});

test('an untrusted workspace never measures, whatever the settings say', () => {
  const { options } = serverOptions(reader({ ...defaults, measureOnSave: true }), false, '/home/u');
  assert.equal(options.allowMeasuring, false);
  assert.equal(options.measureOnSave, false);
  // The rest is still sent: the server keeps showing diagnostics and cached verdicts.
  assert.equal(options.alpha, 0.05);
});

test('invalid values are left out (the server keeps its default) with one message each', () => {
  const { options, problems } = serverOptions(
    reader({ alpha: 1.5, interpretation: 'bayesian', semantics: 'lenient', budgetSeconds: -3, measureOnSave: 'yes', javaHome: 17, jvmArgs: '-Xmx2g', violationSeverity: 'fatal' }),
    true,
    '/home/u',
  );
  for (const key of ['alpha', 'interpretation', 'semantics', 'budgetSeconds', 'javaHome', 'jvmArgs', 'violationSeverity'] as const) {
    assert.ok(!(key in options), `${key} should be left out, got ${JSON.stringify(options)}`);
  }
  assert.equal(options.measureOnSave, false);
  assert.equal(problems.length, 8, problems.join('\n'));
  assert.match(problems[0], /perfls\.alpha must be a number in \(0, 0\.5\].*1\.5/);
  assert.match(problems[1], /perfls\.interpretation must be one of auto, quick, parametric, nonparametric, rank.*"bayesian"/);
  assert.match(problems[2], /perfls\.semantics must be one of auto, shown, classic, not "lenient"/);
  assert.match(problems.join('\n'), /perfls\.violationSeverity must be "warning" or "error", not "fatal"/);
});

test('remote measuring: the setting and a worker label pass; a bad label is left out with a message', () => {
  const ok = serverOptions(reader({ ...defaults, remote: true, remoteLabel: ' quiet-x86 ' }), true, '/h');
  assert.deepEqual(ok.problems, []);
  assert.equal(ok.options.remote, true);
  assert.equal(ok.options.remoteLabel, 'quiet-x86');
  const bad = serverOptions(reader({ remote: 'yes', remoteLabel: 'Quiet x86' }), true, '/h');
  assert.ok(!('remote' in bad.options) && !('remoteLabel' in bad.options), JSON.stringify(bad.options));
  assert.equal(bad.problems.length, 2, bad.problems.join('\n'));
  assert.match(bad.problems[1], /perfls\.remoteLabel must be a worker label.*"Quiet x86"/);
});

test('alpha bounds are exclusive and NaN is rejected', () => {
  for (const bad of [0, 1, Number.NaN, Infinity]) {
    const { options, problems } = serverOptions(reader({ alpha: bad }), true, '/h');
    assert.ok(!('alpha' in options), `alpha ${bad}`);
    assert.equal(problems.length, 1);
  }
});

test('unset settings (a reader without defaults) send only the trust keys', () => {
  assert.deepEqual(serverOptions(reader({}), true, '/h'), { options: { measureOnSave: false, allowMeasuring: true }, problems: [] });
});

test('didChangeConfiguration carries the options under settings.perfls', () => {
  const { options } = serverOptions(reader(defaults), false, '/h');
  assert.deepEqual(configurationChange(options), { settings: { perfls: options } });
});

test('lenses pass through when each is a lens; anything else is reported and left to the server', () => {
  const ok = serverOptions(reader({ ...defaults, lenses: ['check', 'profile', 'check'] }), true, '/h');
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.options.lenses, ['check', 'profile']);
  const bad = serverOptions(reader({ ...defaults, lenses: ['check', 'flamegraph'] }), true, '/h');
  assert.ok(!('lenses' in bad.options), JSON.stringify(bad.options));
  assert.match(bad.problems[0], /perfls\.lenses must list some of measure, check, profile, compare, calibrate/);
});

test('inlay hints: the setting passes; a value that is not a boolean is left out with a message', () => {
  assert.equal(serverOptions(reader({ ...defaults, inlayHints: false }), true).options.inlayHints, false);
  const { options, problems } = serverOptions(reader({ ...defaults, inlayHints: 'no' }), true);
  assert.ok(!('inlayHints' in options));
  assert.match(problems.join('\n'), /perfls\.inlayHints must be true or false/);
});
