// The same second file for mocha.
const assert = require('node:assert');
const { stockAfter } = require('../lib/inventory');

describe('stock', () => {
  it('an urgent order takes its items once', () => {
    assert.strictEqual(stockAfter({ apples: 5 }, { apples: 2 }, true).apples, 3);
  });
});
