// Stock after an order, with a bug: an order marked urgent is subtracted twice.
function stockAfter(stock, order, urgent = false) {
  const left = { ...stock };
  for (const [item, count] of Object.entries(order)) {
    left[item] = (left[item] ?? 0) - count;
    if (urgent) left[item] -= count;
  }
  console.log('stock after the order', JSON.stringify(left));
  return left;
}

module.exports = { stockAfter };
