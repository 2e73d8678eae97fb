// The same tests for QUnit.
const { total } = require('../lib/cart');

QUnit.module('total', () => {
  QUnit.test('adds up the items', (assert) => {
    assert.strictEqual(total([{ price: 10, quantity: 2 }, { price: 5, quantity: 1 }]), 25);
  });

  QUnit.test('takes ten percent off with TEN', (assert) => {
    assert.strictEqual(total([{ price: 10, quantity: 2 }], 'TEN'), 18);
  });
});
