/** The clock both sides of the signaling wire stamp and compare times with. */
/**
 * Read once: it never changes within a page or process, and reading it costs
 * more than `performance.now()` itself in Chrome (a DOM attribute), on a clock
 * read three times per event.
 */
const TIME_ORIGIN = performance.timeOrigin;

/** The clock both sides use: ms since the epoch with sub-ms resolution, monotonic within a page or process. */
export function preciseNow(): number {
  return TIME_ORIGIN + performance.now();
}
