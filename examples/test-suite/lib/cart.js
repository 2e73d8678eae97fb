// A shopping cart total with a bug: a discount code is applied twice.
function total(items, code) {
  let sum = 0;
  for (const { price, quantity } of items) sum += price * quantity;
  if (code === 'TEN') sum = sum * 0.9;
  if (code && code.startsWith('TEN')) sum = sum * 0.9;
  return Math.round(sum * 100) / 100;
}

module.exports = { total };

if (require.main === module) {
  console.log('total', total([{ price: 10, quantity: 2 }], 'TEN'));
}
