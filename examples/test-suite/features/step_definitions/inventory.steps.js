// The stock's steps for cucumber-js.
const assert = require('node:assert');
const { When, Then } = require('@cucumber/cucumber');
const { stockAfter } = require('../../lib/inventory');

When('an urgent order takes 2 of 5 apples', function () {
  this.left = stockAfter({ apples: 5 }, { apples: 2 }, true);
});

Then('{int} apples are left', function (expected) {
  assert.strictEqual(this.left.apples, expected);
});
