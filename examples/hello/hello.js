// The smallest program: one line of output. Used by scripts/bench.sh as the start-up reference.
console.log('hello');
