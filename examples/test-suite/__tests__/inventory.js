// The stock's tests for jest.
const { stockAfter } = require('../lib/inventory');

describe('stock', () => {
  it('an urgent order takes its items once', () => {
    expect(stockAfter({ apples: 5 }, { apples: 2 }, true).apples).toBe(3);
  });
});
