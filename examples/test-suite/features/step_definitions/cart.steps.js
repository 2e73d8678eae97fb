// The cart's steps for cucumber-js.
const assert = require('node:assert');
const { When, Then } = require('@cucumber/cucumber');
const { total } = require('../../lib/cart');

When('the cart holds 2 at 10 and 1 at 5', function () {
  this.total = total([{ price: 10, quantity: 2 }, { price: 5, quantity: 1 }]);
});

When('the cart holds 2 at 10 with the code TEN', function () {
  this.total = total([{ price: 10, quantity: 2 }], 'TEN');
});

Then('the total is {int}', function (expected) {
  assert.strictEqual(this.total, expected);
});
