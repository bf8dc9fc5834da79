// The status-bar text for the server's perfls/status notification.

/** Params of the server's perfls/status notification. */
export interface QueueStatus {
  running: number;
  queued: number;
  message?: string;
}

export interface StatusView {
  text: string;
  tooltip: string;
}

/** The notification's method name. */
export const STATUS_NOTIFICATION = 'perfls/status';

/**
 * statusView renders the measurement queue: "$(pulse) perfls: 1 running, 2
 * queued" while anything runs or waits, "perfls: idle" otherwise. Malformed
 * counts (the params are JSON from another process) count as 0.
 */
export function statusView(p: Partial<QueueStatus> | null | undefined, trusted: boolean): StatusView {
  const running = count(p?.running);
  const queued = count(p?.queued);
  const message = typeof p?.message === 'string' ? p.message.trim() : '';
  let text: string;
  if (running === 0 && queued === 0) {
    text = 'perfls: idle';
  } else {
    const parts: string[] = [];
    if (running > 0) {
      parts.push(`${running} running`);
    }
    if (queued > 0) {
      parts.push(`${queued} queued`);
    }
    text = `$(pulse) perfls: ${parts.join(', ')}`;
  }
  const lines = [message !== '' && message !== 'idle' ? `perfls: ${message}` : 'perfls: no measurement running'];
  if (!trusted) {
    lines.push('Measuring is off: this workspace is not trusted.');
  }
  lines.push('Click to show the perfls output.');
  return { text, tooltip: lines.join('\n') };
}

/** The fixed views for client states other than "running". */
export const STARTING: StatusView = { text: '$(sync~spin) perfls: starting', tooltip: 'perfls: starting the language server' };
export const STOPPED: StatusView = { text: '$(circle-slash) perfls: stopped', tooltip: 'perfls: the language server is not running. Click to show its output; run "perfls: Restart Language Server" to start it again.' };
export const NOT_FOUND: StatusView = { text: '$(error) perfls: not found', tooltip: 'perfls: the perfls binary was not found. Set perfls.path or put perfls on PATH.' };

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}
