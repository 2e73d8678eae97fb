// A small program that fails: it parses an order, logs what it does, and throws on a bad quantity.
// Try: cargo run --release -- run examples/failing/app.js
'use strict';

function parseOrder(line) {
  const [item, quantity] = line.split(':');
  console.log('parsing order', { item, quantity });
  const count = Number(quantity);
  if (!Number.isInteger(count) || count <= 0) {
    throw new RangeError(`bad quantity for ${item}: ${JSON.stringify(quantity)}`);
  }
  return { item, count };
}

const orders = ['apples:3', 'pears:2', 'plums:two'];
for (const line of orders) {
  const order = parseOrder(line);
  console.log('accepted', order.item, order.count);
}
