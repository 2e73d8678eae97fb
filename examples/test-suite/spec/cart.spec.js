// The same tests for mocha.
const assert = require('node:assert');
const { total } = require('../lib/cart');

describe('total', () => {
  it('adds up the items', () => {
    assert.strictEqual(total([{ price: 10, quantity: 2 }, { price: 5, quantity: 1 }]), 25);
  });

  it('takes ten percent off with TEN', () => {
    assert.strictEqual(total([{ price: 10, quantity: 2 }], 'TEN'), 18);
  });
});
