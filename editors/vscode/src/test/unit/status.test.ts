import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { statusView } from '../../status';

test('a busy queue shows running and queued counts with the pulse icon', () => {
  assert.equal(statusView({ running: 1, queued: 2, message: 'measuring Search#binarySearch' }, true).text, '$(pulse) perfls: 1 running, 2 queued');
  assert.equal(statusView({ running: 1, queued: 0, message: '' }, true).text, '$(pulse) perfls: 1 running');
  assert.equal(statusView({ running: 0, queued: 3, message: '' }, true).text, '$(pulse) perfls: 3 queued');
});

test('an empty queue is idle', () => {
  assert.equal(statusView({ running: 0, queued: 0, message: 'idle' }, true).text, 'perfls: idle');
  assert.equal(statusView(undefined, true).text, 'perfls: idle');
});

test('the tooltip carries the server message and says when measuring is off', () => {
  const busy = statusView({ running: 1, queued: 0, message: 'measuring Search#binarySearch' }, true);
  assert.match(busy.tooltip, /^perfls: measuring Search#binarySearch\n/);
  assert.doesNotMatch(busy.tooltip, /not trusted/);
  assert.match(statusView({ running: 0, queued: 0, message: 'idle' }, false).tooltip, /Measuring is off: this workspace is not trusted/);
});

test('malformed counts from the wire count as zero', () => {
  assert.equal(statusView({ running: 'x' as unknown as number, queued: -1 }, true).text, 'perfls: idle');
  assert.equal(statusView({ running: 2.7, queued: Number.NaN }, true).text, '$(pulse) perfls: 2 running');
  assert.equal(statusView(null, true).text, 'perfls: idle');
});
