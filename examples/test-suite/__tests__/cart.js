// The cart's tests for jest (`npm run test:jest`; named so that `node --test` leaves them alone).
const { total } = require('../lib/cart');

describe('total', () => {
  it('adds up the items', () => {
    expect(total([{ price: 10, quantity: 2 }, { price: 5, quantity: 1 }])).toBe(25);
  });

  it('takes ten percent off with TEN', () => {
    expect(total([{ price: 10, quantity: 2 }], 'TEN')).toBe(18);
  });
});
