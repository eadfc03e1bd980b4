// A stand-in for the project's unit tests (a gate): prints a test report and exits 0.
console.log('✔ refund: request within 30 days (3 ms)');
console.log('✔ refund: duplicate request is rejected (1 ms)');
console.log('✔ refund: billing error is shown as a message (1 ms)');
console.log('tests 3 · pass 3 · fail 0');
