/**
 * The order of a bench page's scenarios in one round: a fresh shuffle per
 * round from a fixed seed (the same orders in every run, so runs compare).
 *
 * Why shuffled, not rotated: a scenario's block runs measurably slower or
 * faster depending on the block just before it. In dispatch-latency, the
 * scenario after the raw RTCDataChannel block took 30–60 µs longer than
 * the same scenario after the raw WebSocket block, more than the difference
 * between the scenarios compared. Rotating a fixed order moves each scenario
 * through every position but keeps its predecessor; shuffling varies both.
 */
export function roundOrder<T>(items: readonly T[], round: number, seed = 0x5eed): T[] {
  // mulberry32: a small, well-mixed 32-bit generator; Math.random cannot be seeded.
  let state = (seed + Math.imul(round + 1, 0x9e3779b1)) >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const order = [...items];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}
