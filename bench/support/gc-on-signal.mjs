// Preloaded (`node --expose-gc --import ./bench/support/gc-on-signal.mjs …`) into a server whose
// memory a benchmark measures: on SIGUSR2 it collects garbage and prints `gc-done N` on stdout, so
// the benchmark reads the RSS of what the server keeps, not of what it has yet to collect. Loaded
// into every server compared (the kit's and the Yjs server), so neither is measured differently.
let collections = 0;
process.on('SIGUSR2', () => {
  if (typeof globalThis.gc !== 'function') throw new Error('gc-on-signal needs node --expose-gc');
  // Twice: objects freed by finalizers of the first pass go in the second.
  globalThis.gc();
  globalThis.gc();
  const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  process.stdout.write(`gc-done ${++collections} heapUsed ${heapUsed} heapTotal ${heapTotal} external ${external} arrayBuffers ${arrayBuffers}\n`);
});
