// The same tests for vitest (`npm run test:vitest`).
import { describe, it, expect } from 'vitest';
import { createRequire } from 'node:module';

const { total } = createRequire(import.meta.url)('../lib/cart.js');

describe('total', () => {
  it('adds up the items', () => {
    expect(total([{ price: 10, quantity: 2 }, { price: 5, quantity: 1 }])).toBe(25);
  });

  it('takes ten percent off with TEN', () => {
    expect(total([{ price: 10, quantity: 2 }], 'TEN')).toBe(18);
  });
});
