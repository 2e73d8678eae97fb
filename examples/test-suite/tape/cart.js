// tape (`npm run test:tape`; named so that `node --test` leaves them alone): one test passes, one fails (the discount is applied twice).
const test = require('tape');
const { total } = require('../lib/cart');

test('adds up the items', (t) => {
  t.equal(total([{ price: 10, quantity: 2 }, { price: 5, quantity: 1 }]), 25);
  t.end();
});

test('takes ten percent off with TEN', (t) => {
  t.equal(total([{ price: 10, quantity: 2 }], 'TEN'), 18);
  t.end();
});
