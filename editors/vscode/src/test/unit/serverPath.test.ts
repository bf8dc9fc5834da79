import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Environment, hostEnvironment, resolveServer } from '../../serverPath';

// A fake file system: the set of executable files.
function env(executables: string[], vars: Record<string, string> = {}): Environment {
  const set = new Set(executables);
  return { env: vars, platform: 'linux', home: '/home/u', isExecutable: (p) => set.has(p) };
}

test('without a setting, perfls is found on PATH, first directory first', () => {
  const e = env(['/opt/b/perfls', '/usr/local/bin/perfls'], { PATH: '/usr/bin:/opt/b:/usr/local/bin' });
  assert.deepEqual(resolveServer('', undefined, e), { path: '/opt/b/perfls' });
  assert.deepEqual(resolveServer(undefined, undefined, e), { path: '/opt/b/perfls' });
});

test('without a setting or PATH entry, go install\'s directories are tried', () => {
  assert.deepEqual(resolveServer('', undefined, env(['/home/u/go/bin/perfls'], { PATH: '/usr/bin' })), { path: '/home/u/go/bin/perfls' });
  assert.deepEqual(resolveServer('', undefined, env(['/gp/bin/perfls', '/home/u/go/bin/perfls'], { PATH: '', GOPATH: '/gp' })), { path: '/gp/bin/perfls' });
  assert.deepEqual(resolveServer('', undefined, env(['/gobin/perfls'], { GOBIN: '/gobin' })), { path: '/gobin/perfls' });
});

test('without a setting or PATH entry, the release archive\'s install directories are tried after go install\'s', () => {
  assert.deepEqual(resolveServer('', undefined, env(['/home/u/.local/bin/perfls'], { PATH: '/usr/bin' })), { path: '/home/u/.local/bin/perfls' });
  assert.deepEqual(resolveServer('', undefined, env(['/usr/local/bin/perfls'], { PATH: '' })), { path: '/usr/local/bin/perfls' });
  assert.deepEqual(resolveServer('', undefined, env(['/usr/local/bin/perfls', '/home/u/go/bin/perfls'], { PATH: '' })), { path: '/home/u/go/bin/perfls' });
});

test('not found: the message says where it looked and how to fix it', () => {
  const r = resolveServer('', undefined, env([], { PATH: '/usr/bin', GOPATH: '/gp' }));
  assert.ok('error' in r);
  assert.match(r.error, /not found on PATH nor in \/gp\/bin, \/home\/u\/go\/bin, \/home\/u\/\.local\/bin, \/usr\/local\/bin\./);
  assert.match(r.error, /release archive .*docs\/install\.md/);
  assert.match(r.error, /go install github\.com\/perfls\/perfls\/cmd\/perfls@latest/);
  assert.match(r.error, /perfls\.path/);
});

test('a configured path wins over PATH; ~ expands; relative paths start at the workspace folder', () => {
  const e = env(['/usr/bin/perfls', '/home/u/bin/perfls', '/ws/tools/perfls', '/opt/perfls'], { PATH: '/usr/bin' });
  assert.deepEqual(resolveServer('/opt/perfls', '/ws', e), { path: '/opt/perfls' });
  assert.deepEqual(resolveServer('~/bin/perfls', '/ws', e), { path: '/home/u/bin/perfls' });
  assert.deepEqual(resolveServer('tools/perfls', '/ws', e), { path: '/ws/tools/perfls' });
  assert.deepEqual(resolveServer(' ./tools/perfls ', '/ws', e), { path: '/ws/tools/perfls' });
});

test('a configured path that is not executable is an error naming the setting, not a fallback to PATH', () => {
  const r = resolveServer('/opt/missing/perfls', '/ws', env(['/usr/bin/perfls'], { PATH: '/usr/bin' }));
  assert.ok('error' in r);
  assert.match(r.error, /perfls\.path is set to "\/opt\/missing\/perfls", which is not an executable file/);
});

test('a configured bare name is looked up on PATH', () => {
  const e = env(['/usr/bin/perfls-dev'], { PATH: '/usr/bin' });
  assert.deepEqual(resolveServer('perfls-dev', '/ws', e), { path: '/usr/bin/perfls-dev' });
  const r = resolveServer('perfls-old', '/ws', e);
  assert.ok('error' in r && /not on PATH \(\/usr\/bin\)/.test(r.error));
});

test('on Windows, perfls.exe is found on a ;-separated Path', () => {
  const e: Environment = { env: { Path: 'C:\\x;C:\\go\\bin' }, platform: 'win32', home: 'C:\\Users\\u', isExecutable: (p) => p === path.join('C:\\go\\bin', 'perfls.exe') };
  assert.deepEqual(resolveServer('', undefined, e), { path: path.join('C:\\go\\bin', 'perfls.exe') });
});

test('the host environment checks real files: executable regular files only', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfls-path-'));
  try {
    const exe = path.join(dir, 'perfls');
    fs.writeFileSync(exe, '#!/bin/sh\n', { mode: 0o755 });
    const plain = path.join(dir, 'plain');
    fs.writeFileSync(plain, '', { mode: 0o644 });
    const h = hostEnvironment();
    assert.equal(h.isExecutable(exe), true);
    assert.equal(h.isExecutable(dir), false);
    assert.equal(h.isExecutable(path.join(dir, 'none')), false);
    if (process.platform !== 'win32') {
      assert.equal(h.isExecutable(plain), false);
    }
    assert.deepEqual(resolveServer('', undefined, { ...h, env: { PATH: dir } }), { path: exe });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
