// node --test: one test passes, one fails (the discount is applied twice).
const test = require('node:test');
const assert = require('node:assert');
const { total } = require('../lib/cart');

test('adds up the items', () => {
  assert.strictEqual(total([{ price: 10, quantity: 2 }, { price: 5, quantity: 1 }]), 25);
});

test('takes ten percent off with TEN', () => {
  assert.strictEqual(total([{ price: 10, quantity: 2 }], 'TEN'), 18);
});
