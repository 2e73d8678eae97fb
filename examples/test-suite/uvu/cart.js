// The same tests for uvu.
const { test } = require('uvu');
const assert = require('uvu/assert');
const { total } = require('../lib/cart');

test('adds up the items', () => {
  assert.is(total([{ price: 10, quantity: 2 }, { price: 5, quantity: 1 }]), 25);
});

test('takes ten percent off with TEN', () => {
  assert.is(total([{ price: 10, quantity: 2 }], 'TEN'), 18);
});

test.run();
