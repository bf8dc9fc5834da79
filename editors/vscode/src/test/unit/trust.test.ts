import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { isBlocked, UNTRUSTED_MESSAGE } from '../../trust';

test('measuring commands are blocked only in an untrusted workspace', () => {
  for (const c of ['perfls.checkFormulas', 'perfls.measure', 'perfls.checkFile', 'perfls.calibrate', 'perfls.acceptBaseline', 'perfls.profile', 'perfls.compareWithBase']) {
    assert.equal(isBlocked(c, false), true, c);
    assert.equal(isBlocked(c, true), false, c);
  }
  assert.equal(isBlocked('perfls.showSomething', false), false);
  assert.match(UNTRUSTED_MESSAGE, /untrusted workspace/);
});
