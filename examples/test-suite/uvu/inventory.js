// The same second file for uvu.
const { test } = require('uvu');
const assert = require('uvu/assert');
const { stockAfter } = require('../lib/inventory');

test('an urgent order takes its items once', () => {
  assert.is(stockAfter({ apples: 5 }, { apples: 2 }, true).apples, 3);
});

test.run();
