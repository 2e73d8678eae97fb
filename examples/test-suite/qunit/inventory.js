// The same second file for QUnit.
const { stockAfter } = require('../lib/inventory');

QUnit.module('stock', () => {
  QUnit.test('an urgent order takes its items once', (assert) => {
    assert.strictEqual(stockAfter({ apples: 5 }, { apples: 2 }, true).apples, 3);
  });
});
