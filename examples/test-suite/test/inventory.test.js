// node --test: a second file with a failing test (an urgent order is subtracted twice).
const test = require('node:test');
const assert = require('node:assert');
const { stockAfter } = require('../lib/inventory');

test('an urgent order takes its items once', () => {
  assert.strictEqual(stockAfter({ apples: 5 }, { apples: 2 }, true).apples, 3);
});
