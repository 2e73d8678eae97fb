// The same second file for vitest.
import { describe, it, expect } from 'vitest';
import { createRequire } from 'node:module';

const { stockAfter } = createRequire(import.meta.url)('../lib/inventory.js');

describe('stock', () => {
  it('an urgent order takes its items once', () => {
    expect(stockAfter({ apples: 5 }, { apples: 2 }, true).apples).toBe(3);
  });
});
