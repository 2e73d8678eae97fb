// tape: a second file with a failing test (an urgent order is subtracted twice).
const test = require('tape');
const { stockAfter } = require('../lib/inventory');

test('an urgent order takes its items once', (t) => {
  t.equal(stockAfter({ apples: 5 }, { apples: 2 }, true).apples, 3);
  t.end();
});
