// A stand-in for the VS Code extension host, enough for the real
// vscode-languageclient to run the extension against the real `perfls serve`
// in plain Node: documents, diagnostics collections, code lens and hover
// providers, commands, settings, trust, the status bar. What the client
// touches that is not modelled here is a no-op (and recorded in `unknown`).
// installHost() must run before the extension is first required.

/* eslint-disable @typescript-eslint/no-explicit-any */
import Module = require('module');
import { URI } from 'vscode-uri';

export class Emitter<T> {
  private listeners: ((e: T) => any)[] = [];
  readonly event = (l: (e: T) => any, thisArg?: any, disposables?: { dispose(): any }[]) => {
    const f = thisArg ? l.bind(thisArg) : l;
    this.listeners.push(f);
    const d = { dispose: () => (this.listeners = this.listeners.filter((x) => x !== f)) };
    disposables?.push(d);
    return d;
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

class Position {
  constructor(readonly line: number, readonly character: number) {}
}
class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: any, b: any, c?: number, d?: number) {
    [this.start, this.end] = typeof a === 'number' ? [new Position(a, b), new Position(c!, d!)] : [a, b];
  }
  get isEmpty() {
    return this.start.line === this.end.line && this.start.character === this.end.character;
  }
}
class Disposable {
  constructor(private readonly fn: () => any) {}
  static from(...ds: { dispose(): any }[]) {
    return new Disposable(() => ds.forEach((d) => d?.dispose()));
  }
  dispose() {
    this.fn();
  }
}
class CancellationTokenSource {
  private readonly emitter = new Emitter<void>();
  readonly token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
  cancel() {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose() {}
}
class CancellationError extends Error {}
class MarkdownString {
  isTrusted?: boolean;
  supportHtml?: boolean;
  constructor(public value = '', public supportThemeIcons = false) {}
  appendText(t: string) {
    this.value += t;
    return this;
  }
  appendMarkdown(t: string) {
    this.value += t;
    return this;
  }
  appendCodeblock(t: string, lang = '') {
    this.value += '\n```' + lang + '\n' + t + '\n```\n';
    return this;
  }
}
class Hover {
  contents: any[];
  constructor(contents: any, public range?: Range) {
    this.contents = Array.isArray(contents) ? contents : [contents];
  }
}
class CodeLens {
  constructor(public range: Range, public command?: any) {}
  get isResolved() {
    return !!this.command;
  }
}
class Diagnostic {
  source?: string;
  code?: any;
  tags?: any[];
  relatedInformation?: any[];
  constructor(public range: Range, public message: string, public severity = 0) {}
}
class Location {
  constructor(public uri: any, public range: any) {}
}
class DiagnosticRelatedInformation {
  constructor(public location: Location, public message: string) {}
}

class TextEdit {
  constructor(public range: Range, public newText: string) {}
}
class CodeActionKind {
  static readonly Empty = new CodeActionKind('');
  static readonly QuickFix = new CodeActionKind('quickfix');
  constructor(readonly value: string) {}
  append(part: string) {
    return new CodeActionKind(this.value ? `${this.value}.${part}` : part);
  }
}
class CodeAction {
  edit?: WorkspaceEdit;
  diagnostics?: Diagnostic[];
  isPreferred?: boolean;
  constructor(public title: string, public kind?: CodeActionKind) {}
}
/** WorkspaceEdit keeps the edits by document URI, as set and replace give them. */
class WorkspaceEdit {
  readonly changes = new Map<string, TextEdit[]>();
  set(uri: any, edits: TextEdit[]) {
    this.changes.set(String(uri), edits);
  }
  replace(uri: any, range: Range, newText: string) {
    this.changes.set(String(uri), [...(this.changes.get(String(uri)) ?? []), new TextEdit(range, newText)]);
  }
  entries() {
    return [...this.changes.entries()];
  }
}
class SemanticTokensLegend {
  constructor(readonly tokenTypes: string[], readonly tokenModifiers: string[] = []) {}
}
class SemanticTokens {
  constructor(readonly data: Uint32Array, readonly resultId?: string) {}
}
class InlayHint {
  tooltip?: any;
  paddingLeft?: boolean;
  constructor(public position: Position, public label: any, public kind?: number) {}
}
class InlayHintLabelPart {
  constructor(public value: string) {}
}

/** auto makes a no-op stand-in for an API the host does not model. */
function auto(name: string, unknown: Set<string>): any {
  unknown.add(name);
  const target = class {
    constructor(...args: any[]) {
      Object.assign(this, { args });
    }
  };
  return new Proxy(target, {
    get: (t: any, p) => {
      if (p === 'prototype' || p === 'name' || p === 'length') {
        return t[p];
      }
      if (p === 'then' || typeof p === 'symbol') {
        return undefined;
      }
      return auto(`${name}.${String(p)}`, unknown);
    },
    apply: () => ({ dispose() {} }),
  });
}

/** Host is the fake editor the test drives and reads. */
export class Host {
  config: Record<string, unknown> = {};
  isTrusted = true;
  workspaceFolders: { uri: URI; name: string; index: number }[] = [];
  readonly textDocuments: any[] = [];
  readonly commands = new Map<string, (...args: any[]) => any>();
  readonly shown: { kind: string; message: string }[] = [];
  readonly output: string[] = [];
  readonly diagnostics = new Map<string, Diagnostic[]>();
  readonly codeLensProviders: { selector: any; provider: any }[] = [];
  readonly hoverProviders: { selector: any; provider: any }[] = [];
  readonly codeActionProviders: { selector: any; provider: any }[] = [];
  readonly tokenProviders: { selector: any; provider: any; legend: SemanticTokensLegend }[] = [];
  readonly inlayProviders: { selector: any; provider: any }[] = [];
  readonly unknown = new Set<string>();
  readonly statusItem = { text: '', tooltip: '' as any, command: '' as any, name: '', show() {}, hide() {}, dispose() {} };
  readonly statusTexts: string[] = [];
  readonly trustGranted = new Emitter<void>();
  readonly configChanged = new Emitter<any>();
  readonly opened = new Emitter<any>();
  private readonly diagnosticsChanged: (() => void)[] = [];

  /** openDocument opens a Java file as VS Code would, telling the language client. */
  openDocument(fsPath: string, text: string): any {
    const uri = URI.file(fsPath);
    const doc = {
      uri,
      fileName: fsPath,
      languageId: 'java',
      version: 1,
      isUntitled: false,
      isClosed: false,
      isDirty: false,
      lineCount: text.split('\n').length,
      getText: () => text,
      eol: 1,
    };
    this.textDocuments.push(doc);
    this.opened.fire(doc);
    return doc;
  }

  /** waitForDiagnostics resolves once diagnostics for uri satisfy ok. */
  waitForDiagnostics(uri: string, ok: (d: Diagnostic[]) => boolean): Promise<Diagnostic[]> {
    return new Promise((resolve) => {
      const check = () => {
        const d = this.diagnostics.get(uri);
        if (d && ok(d)) {
          this.diagnosticsChanged.splice(this.diagnosticsChanged.indexOf(check), 1);
          resolve(d);
        }
      };
      this.diagnosticsChanged.push(check);
      check();
    });
  }

  private match(selector: any, doc: any): number {
    const sels = Array.isArray(selector) ? selector : [selector];
    return sels.some((s: any) => (typeof s === 'string' ? s === doc.languageId : (!s.language || s.language === doc.languageId) && (!s.scheme || s.scheme === doc.uri.scheme))) ? 10 : 0;
  }

  readonly vscode: any = (() => {
    const host = this;
    const statusItem = new Proxy(this.statusItem, {
      set(t: any, p, v) {
        t[p] = v;
        if (p === 'text') {
          host.statusTexts.push(v);
        }
        return true;
      },
    });
    const known: any = {
      version: '1.82.0',
      Position, Range, Disposable, CancellationTokenSource, CancellationError, MarkdownString, Hover, CodeLens,
      Diagnostic, Location, DiagnosticRelatedInformation, EventEmitter: Emitter, Uri: URI,
      TextEdit, CodeAction, CodeActionKind, WorkspaceEdit, SemanticTokensLegend, SemanticTokens, InlayHint, InlayHintLabelPart,
      CodeActionTriggerKind: { Invoke: 1, Automatic: 2 },
      DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
      DiagnosticTag: { Unnecessary: 1, Deprecated: 2 },
      StatusBarAlignment: { Left: 1, Right: 2 },
      ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
      env: { appName: 'fake host', language: 'en', machineId: 'test', sessionId: 'test', uriScheme: 'vscode', openExternal: async () => false },
      window: {
        createOutputChannel: () => ({
          name: 'perfls',
          appendLine: (l: string) => host.output.push(l),
          append: (l: string) => host.output.push(l),
          replace: () => undefined,
          clear: () => undefined,
          show: () => undefined,
          hide: () => undefined,
          dispose: () => undefined,
        }),
        createStatusBarItem: () => statusItem,
        showErrorMessage: async (m: string) => void host.shown.push({ kind: 'error', message: m }),
        showWarningMessage: async (m: string) => void host.shown.push({ kind: 'warning', message: m }),
        showInformationMessage: async (m: string) => void host.shown.push({ kind: 'info', message: m }),
        withProgress: async (_o: any, task: any) => task({ report() {} }, new CancellationTokenSource().token),
        activeTextEditor: undefined,
        visibleTextEditors: [],
        onDidChangeActiveTextEditor: new Emitter<any>().event,
        onDidChangeVisibleTextEditors: new Emitter<any>().event,
        tabGroups: { all: [], onDidChangeTabs: new Emitter<any>().event, onDidChangeTabGroups: new Emitter<any>().event },
      },
      workspace: {
        getConfiguration: (section?: string) => ({
          get: (key: string, def?: unknown) => {
            const full = section ? `${section}.${key}` : key;
            const k = full.startsWith('perfls.') ? full.slice('perfls.'.length) : full;
            return k in host.config ? host.config[k] : def;
          },
          has: (key: string) => key in host.config,
          inspect: () => undefined,
          update: async () => undefined,
        }),
        get isTrusted() {
          return host.isTrusted;
        },
        get workspaceFolders() {
          return host.workspaceFolders;
        },
        get textDocuments() {
          return host.textDocuments;
        },
        onDidGrantWorkspaceTrust: this.trustGranted.event,
        onDidChangeConfiguration: this.configChanged.event,
        onDidOpenTextDocument: this.opened.event,
        onDidCloseTextDocument: new Emitter<any>().event,
        onDidChangeTextDocument: new Emitter<any>().event,
        onDidSaveTextDocument: new Emitter<any>().event,
        onWillSaveTextDocument: new Emitter<any>().event,
        onDidChangeWorkspaceFolders: new Emitter<any>().event,
        onDidCreateFiles: new Emitter<any>().event,
        onDidRenameFiles: new Emitter<any>().event,
        onDidDeleteFiles: new Emitter<any>().event,
        onWillCreateFiles: new Emitter<any>().event,
        onWillRenameFiles: new Emitter<any>().event,
        onWillDeleteFiles: new Emitter<any>().event,
        onDidOpenNotebookDocument: new Emitter<any>().event,
        onDidCloseNotebookDocument: new Emitter<any>().event,
        onDidChangeNotebookDocument: new Emitter<any>().event,
        onDidSaveNotebookDocument: new Emitter<any>().event,
        notebookDocuments: [],
        createFileSystemWatcher: () => ({ onDidCreate: new Emitter().event, onDidChange: new Emitter().event, onDidDelete: new Emitter().event, dispose() {} }),
      },
      languages: {
        match: (selector: any, doc: any) => host.match(selector, doc),
        createDiagnosticCollection: () => ({
          set: (uri: any, diags: Diagnostic[] | undefined) => {
            host.diagnostics.set(String(uri), diags ?? []);
            for (const f of [...host.diagnosticsChanged]) {
              f();
            }
          },
          delete: (uri: any) => host.diagnostics.delete(String(uri)),
          clear: () => host.diagnostics.clear(),
          forEach: () => undefined,
          get: (uri: any) => host.diagnostics.get(String(uri)),
          has: (uri: any) => host.diagnostics.has(String(uri)),
          dispose: () => undefined,
        }),
        registerCodeLensProvider: (selector: any, provider: any) => {
          const entry = { selector, provider };
          host.codeLensProviders.push(entry);
          return new Disposable(() => host.codeLensProviders.splice(host.codeLensProviders.indexOf(entry), 1));
        },
        registerCodeActionsProvider: (selector: any, provider: any) => {
          const entry = { selector, provider };
          host.codeActionProviders.push(entry);
          return new Disposable(() => host.codeActionProviders.splice(host.codeActionProviders.indexOf(entry), 1));
        },
        registerDocumentSemanticTokensProvider: (selector: any, provider: any, legend: SemanticTokensLegend) => {
          const entry = { selector, provider, legend };
          host.tokenProviders.push(entry);
          return new Disposable(() => host.tokenProviders.splice(host.tokenProviders.indexOf(entry), 1));
        },
        registerDocumentRangeSemanticTokensProvider: () => new Disposable(() => undefined),
        registerInlayHintsProvider: (selector: any, provider: any) => {
          const entry = { selector, provider };
          host.inlayProviders.push(entry);
          return new Disposable(() => host.inlayProviders.splice(host.inlayProviders.indexOf(entry), 1));
        },
        registerHoverProvider: (selector: any, provider: any) => {
          const entry = { selector, provider };
          host.hoverProviders.push(entry);
          return new Disposable(() => host.hoverProviders.splice(host.hoverProviders.indexOf(entry), 1));
        },
      },
      commands: {
        registerCommand: (id: string, fn: (...a: any[]) => any) => {
          if (host.commands.has(id)) {
            throw new Error(`command '${id}' already exists`);
          }
          host.commands.set(id, fn);
          return new Disposable(() => host.commands.get(id) === fn && host.commands.delete(id));
        },
        executeCommand: async (id: string, ...args: any[]) => {
          const fn = host.commands.get(id);
          if (!fn) {
            throw new Error(`command '${id}' not found`);
          }
          return fn(...args);
        },
        getCommands: async () => [...host.commands.keys()],
      },
    };
    const wrap = (obj: any, name: string): any =>
      new Proxy(obj, {
        get: (t, p) => {
          if (typeof p === 'symbol' || p === 'then' || p === '__esModule') {
            return t[p];
          }
          if (p in t) {
            const v = t[p];
            return v && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype ? wrap(v, `${name}.${p}`) : v;
          }
          return auto(`${name}.${String(p)}`, host.unknown);
        },
      });
    return wrap(known, 'vscode');
  })();

  /** codeLenses asks the registered providers, as the editor does, and resolves the lenses. */
  async codeLenses(doc: any): Promise<CodeLens[]> {
    const out: CodeLens[] = [];
    for (const { selector, provider } of this.codeLensProviders) {
      if (this.match(selector, doc) > 0) {
        const token = new CancellationTokenSource().token;
        for (const lens of (await provider.provideCodeLenses(doc, token)) ?? []) {
          out.push(lens.command || !provider.resolveCodeLens ? lens : await provider.resolveCodeLens(lens, token));
        }
      }
    }
    return out;
  }

  /** codeActions asks the registered providers for the actions at a range, as the light bulb does. */
  async codeActions(doc: any, range: Range): Promise<CodeAction[]> {
    const out: CodeAction[] = [];
    for (const { selector, provider } of this.codeActionProviders) {
      if (this.match(selector, doc) > 0) {
        const ctx = { diagnostics: this.diagnostics.get(doc.uri.toString()) ?? [], only: undefined, triggerKind: 1 };
        out.push(...((await provider.provideCodeActions(doc, range, ctx, new CancellationTokenSource().token)) ?? []));
      }
    }
    return out;
  }

  /** semanticTokens asks the registered full-document provider; the legend is the one it registered with. */
  async semanticTokens(doc: any): Promise<{ legend: SemanticTokensLegend; data: number[] } | undefined> {
    for (const { selector, provider, legend } of this.tokenProviders) {
      if (this.match(selector, doc) > 0) {
        const t = await provider.provideDocumentSemanticTokens(doc, new CancellationTokenSource().token);
        return t ? { legend, data: [...t.data] } : undefined;
      }
    }
    return undefined;
  }

  /** inlayHints asks the registered providers for the hints of a range. */
  async inlayHints(doc: any, range: Range): Promise<InlayHint[]> {
    const out: InlayHint[] = [];
    for (const { selector, provider } of this.inlayProviders) {
      if (this.match(selector, doc) > 0) {
        out.push(...((await provider.provideInlayHints(doc, range, new CancellationTokenSource().token)) ?? []));
      }
    }
    return out;
  }

  async hover(doc: any, line: number, character: number): Promise<Hover[]> {
    const out: Hover[] = [];
    for (const { selector, provider } of this.hoverProviders) {
      if (this.match(selector, doc) > 0) {
        const h = await provider.provideHover(doc, new Position(line, character), new CancellationTokenSource().token);
        if (h) {
          out.push(h);
        }
      }
    }
    return out;
  }
}

export const host = new Host();

/** installHost makes require('vscode') return the fake host (the language client stays real). */
export function installHost(): Host {
  const M = Module as any;
  const resolve = M._resolveFilename;
  M._resolveFilename = function (request: string, ...rest: any[]) {
    return request === 'vscode' ? 'fake:vscode' : resolve.call(this, request, ...rest);
  };
  const m = new M('fake:vscode');
  m.filename = 'fake:vscode';
  m.loaded = true;
  m.exports = host.vscode;
  require.cache['fake:vscode'] = m;
  return host;
}
