// Finding the perfls binary: the perfls.path setting, else PATH, else the
// directories `go install` writes to and those docs/install.md unpacks a
// release archive into (an editor started from a desktop launcher often
// lacks them on PATH).

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { expandHome } from './settings';

export interface Environment {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
  /** isExecutable tells whether p is an executable regular file. */
  isExecutable(p: string): boolean;
}

export type Resolution = { path: string } | { error: string };

export const INSTALL_HINT =
  'Install a release archive (unpack `perfls` into ~/.local/bin or /usr/local/bin; docs/install.md), ' +
  'or `go install github.com/perfls/perfls/cmd/perfls@latest` (Go 1.26+, a C compiler for cgo), ' +
  'or set the setting perfls.path to the binary.';

/**
 * resolveServer finds the binary to run. A configured path is taken as given
 * (after "~" expansion; a relative path is taken from base, the first
 * workspace folder); a configured bare name is looked up on PATH. With
 * nothing configured, "perfls" is looked up on PATH, then in $GOBIN,
 * $GOPATH/bin and ~/go/bin, then (not on Windows) ~/.local/bin and
 * /usr/local/bin.
 */
export function resolveServer(configured: string | undefined, base: string | undefined, e: Environment = hostEnvironment()): Resolution {
  const exe = e.platform === 'win32' ? ['.exe', ''] : [''];
  const setting = (configured ?? '').trim();
  if (setting !== '') {
    const p = expandHome(setting, e.home);
    if (p.includes('/') || p.includes('\\')) {
      const abs = path.isAbsolute(p) ? p : path.resolve(base ?? e.home, p);
      for (const x of exe) {
        if (e.isExecutable(abs + x)) {
          return { path: abs + x };
        }
      }
      return { error: `perfls.path is set to "${setting}", which is not an executable file. Fix or clear the setting (then perfls is looked up on PATH).` };
    }
    const found = searchPath(p, e, exe);
    if (found) {
      return { path: found };
    }
    return { error: `perfls.path is set to "${setting}", which is not on PATH (${pathList(e).join(path.delimiter) || 'empty'}). Set it to the binary's full path.` };
  }
  const found = searchPath('perfls', e, exe);
  if (found) {
    return { path: found };
  }
  for (const dir of installDirs(e)) {
    for (const x of exe) {
      const p = path.join(dir, 'perfls' + x);
      if (e.isExecutable(p)) {
        return { path: p };
      }
    }
  }
  return { error: `The perfls language server binary was not found on PATH nor in ${installDirs(e).join(', ')}. ${INSTALL_HINT}` };
}

function searchPath(name: string, e: Environment, exe: string[]): string | undefined {
  for (const dir of pathList(e)) {
    for (const x of exe) {
      const p = path.join(dir, name + x);
      if (e.isExecutable(p)) {
        return p;
      }
    }
  }
  return undefined;
}

function pathList(e: Environment): string[] {
  const raw = e.env.PATH ?? e.env.Path ?? '';
  const sep = e.platform === 'win32' ? ';' : ':';
  return raw.split(sep).filter((d) => d !== '');
}

/** installDirs are where go install and docs/install.md put the binary. */
function installDirs(e: Environment): string[] {
  const dirs: string[] = [];
  if (e.env.GOBIN) {
    dirs.push(e.env.GOBIN);
  }
  for (const gp of (e.env.GOPATH ?? '').split(e.platform === 'win32' ? ';' : ':')) {
    if (gp !== '') {
      dirs.push(path.join(gp, 'bin'));
    }
  }
  dirs.push(path.join(e.home, 'go', 'bin'));
  if (e.platform !== 'win32') {
    dirs.push(path.join(e.home, '.local', 'bin'), '/usr/local/bin');
  }
  return [...new Set(dirs)];
}

/** hostEnvironment is the real process environment and file system. */
export function hostEnvironment(): Environment {
  return {
    env: process.env,
    platform: process.platform,
    home: os.homedir(),
    isExecutable(p: string): boolean {
      try {
        if (!fs.statSync(p).isFile()) {
          return false;
        }
        if (process.platform !== 'win32') {
          fs.accessSync(p, fs.constants.X_OK);
        }
        return true;
      } catch {
        return false;
      }
    },
  };
}
