// Pure mapping from the extension's settings to the server's
// initializationOptions (and to didChangeConfiguration's {perfls: …}). No
// `vscode` import: the unit tests run it in plain Node.

import * as os from 'os';

/** Values of perfls.interpretation, as the server accepts them. */
export const INTERPRETATIONS = ['auto', 'quick', 'parametric', 'nonparametric', 'rank'] as const;
export type Interpretation = (typeof INTERPRETATIONS)[number];

/** Values of perfls.semantics, as the server accepts them. */
export const SEMANTICS = ['auto', 'shown', 'classic'] as const;
export type Semantics = (typeof SEMANTICS)[number];

/** Values of perfls.violationSeverity. */
export const SEVERITIES = ['warning', 'error'] as const;
export type ViolationSeverity = (typeof SEVERITIES)[number];

/** Values of perfls.lenses, as the server accepts them. */
export const LENSES = ['measure', 'check', 'profile', 'compare', 'calibrate'] as const;
export type Lens = (typeof LENSES)[number];

/**
 * The server's settings (the editor contract): sent as
 * initialize.initializationOptions and as didChangeConfiguration's
 * settings.perfls. A key left out keeps the server's default.
 */
export interface ServerOptions {
  alpha?: number;
  interpretation?: Interpretation;
  semantics?: Semantics;
  budgetSeconds?: number;
  measureOnSave: boolean;
  javaHome?: string;
  jvmArgs?: string[];
  cpus?: string;
  violationSeverity?: ViolationSeverity;
  allowMeasuring: boolean;
  remote?: boolean;
  remoteLabel?: string;
  lenses?: Lens[];
  inlayHints?: boolean;
}

/** A worker label as perfls worker --label takes it. */
const LABEL = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Reads one setting below the `perfls` section (vscode's WorkspaceConfiguration fits). */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

export interface MappedOptions {
  options: ServerOptions;
  /** One message per setting with a value the server would reject; those keys are left out. */
  problems: string[];
}

/**
 * serverOptions maps the `perfls.*` settings to the server's options. In an
 * untrusted workspace measuring is off whatever the settings say:
 * allowMeasuring=false and measureOnSave=false (measuring compiles and runs
 * the workspace's code).
 */
export function serverOptions(cfg: ConfigReader, trusted: boolean, home: string = os.homedir()): MappedOptions {
  const problems: string[] = [];
  const options: ServerOptions = { measureOnSave: false, allowMeasuring: trusted };

  const alpha = cfg.get<unknown>('alpha');
  if (alpha !== undefined && alpha !== null) {
    if (typeof alpha === 'number' && Number.isFinite(alpha) && alpha > 0 && alpha <= 0.5) {
      options.alpha = alpha;
    } else {
      problems.push(`perfls.alpha must be a number in (0, 0.5], not ${show(alpha)}: using the server's default 0.05`);
    }
  }

  const interp = oneOf(cfg, 'interpretation', INTERPRETATIONS, problems);
  if (interp !== undefined) {
    options.interpretation = interp;
  }
  const semantics = oneOf(cfg, 'semantics', SEMANTICS, problems);
  if (semantics !== undefined) {
    options.semantics = semantics;
  }

  const budget = cfg.get<unknown>('budgetSeconds');
  if (budget !== undefined && budget !== null) {
    if (typeof budget === 'number' && Number.isFinite(budget) && budget >= 0) {
      options.budgetSeconds = budget;
    } else {
      problems.push(`perfls.budgetSeconds must be a number of seconds >= 0 (0 = no limit), not ${show(budget)}: using no limit`);
    }
  }

  const onSave = cfg.get<unknown>('measureOnSave');
  if (onSave !== undefined && onSave !== null && typeof onSave !== 'boolean') {
    problems.push(`perfls.measureOnSave must be true or false, not ${show(onSave)}: using false`);
  }
  options.measureOnSave = trusted && onSave === true;

  const javaHome = cfg.get<unknown>('javaHome');
  if (javaHome !== undefined && javaHome !== null) {
    if (typeof javaHome === 'string') {
      options.javaHome = expandHome(javaHome.trim(), home);
    } else {
      problems.push(`perfls.javaHome must be a path, not ${show(javaHome)}: using JAVA_HOME or PATH`);
    }
  }

  const jvmArgs = cfg.get<unknown>('jvmArgs');
  if (jvmArgs !== undefined && jvmArgs !== null) {
    if (Array.isArray(jvmArgs) && jvmArgs.every((a) => typeof a === 'string')) {
      options.jvmArgs = (jvmArgs as string[]).filter((a) => a.trim() !== '');
    } else {
      problems.push(`perfls.jvmArgs must be a list of strings such as ["-Xmx2g"], not ${show(jvmArgs)}: using none`);
    }
  }

  const cpus = cfg.get<unknown>('cpus');
  if (cpus !== undefined && cpus !== null) {
    // Sent even when empty, so that clearing the setting unpins.
    if (typeof cpus === 'string' && /^\s*(\d+(-\d+)?(\s*,\s*\d+(-\d+)?)*)?\s*$/.test(cpus)) {
      options.cpus = cpus.trim();
    } else {
      problems.push(`perfls.cpus must be a processor list such as "0" or "2-3", not ${show(cpus)}: not pinning`);
    }
  }

  const sev = cfg.get<unknown>('violationSeverity');
  if (sev !== undefined && sev !== null && sev !== '') {
    if (typeof sev === 'string' && (SEVERITIES as readonly string[]).includes(sev)) {
      options.violationSeverity = sev as ViolationSeverity;
    } else {
      problems.push(`perfls.violationSeverity must be "warning" or "error", not ${show(sev)}: using "warning"`);
    }
  }

  const hints = cfg.get<unknown>('inlayHints');
  if (hints !== undefined && hints !== null) {
    if (typeof hints === 'boolean') {
      options.inlayHints = hints;
    } else {
      problems.push(`perfls.inlayHints must be true or false, not ${show(hints)}: showing them`);
    }
  }

  const remote = cfg.get<unknown>('remote');
  if (remote !== undefined && remote !== null) {
    if (typeof remote === 'boolean') {
      options.remote = remote;
    } else {
      problems.push(`perfls.remote must be true or false, not ${show(remote)}: measuring here`);
    }
  }

  const label = cfg.get<unknown>('remoteLabel');
  if (label !== undefined && label !== null) {
    if (typeof label === 'string' && (label.trim() === '' || LABEL.test(label.trim()))) {
      options.remoteLabel = label.trim();
    } else {
      problems.push(`perfls.remoteLabel must be a worker label of lower-case letters, digits, - and _ (e.g. quiet-x86), not ${show(label)}: using the unlabelled workers`);
    }
  }

  const lenses = cfg.get<unknown>('lenses');
  if (lenses !== undefined && lenses !== null) {
    if (Array.isArray(lenses) && lenses.every((l) => typeof l === 'string' && (LENSES as readonly string[]).includes(l))) {
      options.lenses = [...new Set(lenses as Lens[])];
    } else {
      problems.push(`perfls.lenses must list some of ${LENSES.join(', ')}, not ${show(lenses)}: showing measure and check`);
    }
  }

  return { options, problems };
}

/**
 * oneOf reads a setting whose value is one of values ("auto" first): the
 * value, or undefined when unset, empty or not one of them (then with a
 * problem, and the server keeps "auto").
 */
function oneOf<T extends string>(cfg: ConfigReader, key: string, values: readonly T[], problems: string[]): T | undefined {
  const v = cfg.get<unknown>(key);
  if (v === undefined || v === null || v === '') {
    return undefined;
  }
  if (typeof v === 'string' && (values as readonly string[]).includes(v)) {
    return v as T;
  }
  problems.push(`perfls.${key} must be one of ${values.join(', ')}, not ${show(v)}: using "${values[0]}"`);
  return undefined;
}

/** The didChangeConfiguration params for the options: settings.perfls holds them. */
export function configurationChange(options: ServerOptions): { settings: { perfls: ServerOptions } } {
  return { settings: { perfls: options } };
}

/** expandHome replaces a leading "~" or "~/" with the home directory. */
export function expandHome(p: string, home: string): string {
  if (p === '~') {
    return home;
  }
  if (p.startsWith('~/') || p.startsWith('~\\')) {
    return home + p.slice(1);
  }
  return p;
}

function show(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
