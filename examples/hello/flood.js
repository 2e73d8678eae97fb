// 100 000 console.log calls: the tracer's worst case per event. Used by scripts/bench.sh.
const n = Number(process.argv[2] || 100000);
for (let i = 0; i < n; i++) console.log('line', i);
