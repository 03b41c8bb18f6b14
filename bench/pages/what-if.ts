/**
 * What-if patches for the breakdown diagnostic (pages opened with `?manual`
 * and `?whatif=clone,timer`): they change globals of the page, never the
 * library, to estimate what a change to the library would save.
 *
 * - `clone`: structuredClone returns primitives as they are (what a
 *   clonePlain fast path for strings, numbers, booleans and null would do).
 * - `timer`: setTimeout with the default call timeout (5000 ms) schedules
 *   nothing and clearTimeout of such an id does nothing (what one shared
 *   deadline sweep instead of a timer per call would do).
 */

/** Patches this page as `?whatif=` asks; returns the flags applied. */
export function applyWhatIfFromQuery(): string[] {
  const flags = (new URLSearchParams(location.search).get('whatif') ?? '').split(',').filter(Boolean);
  if (flags.includes('clone')) {
    const original = globalThis.structuredClone;
    globalThis.structuredClone = (value: unknown, options?: StructuredSerializeOptions) => (typeof value !== 'object' || value === null ? value : original(value, options));
  }
  if (flags.includes('timer')) {
    const FAKE_BASE = 2 ** 30;
    let nextFake = FAKE_BASE;
    const originalSet = globalThis.setTimeout;
    const originalClear = globalThis.clearTimeout;
    globalThis.setTimeout = ((handler: TimerHandler, timeout?: number, ...args: unknown[]) =>
      timeout === 5_000 ? nextFake++ : originalSet(handler, timeout, ...args)) as typeof setTimeout;
    globalThis.clearTimeout = ((id?: number) => {
      if (id === undefined || id < FAKE_BASE) originalClear(id);
    }) as typeof clearTimeout;
  }
  return flags;
}
