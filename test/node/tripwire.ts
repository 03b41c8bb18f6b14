/** A test's guard against a process that would have exited: shared by the hostile-input suites. */

/** What {@link tripwire} returns. */
export interface Tripwire {
  /** Rejects at the first unhandled rejection or uncaught exception: race requests against it. */
  readonly tripped: Promise<never>;
  /** Every such error seen so far. */
  readonly seen: unknown[];
  /** Stops listening. */
  remove(): void;
}

/**
 * Fails the test at once on an unhandled rejection or uncaught exception (the
 * process would have exited), instead of leaving the request it broke to hang.
 * `what` names the process in the message ("the demo process").
 */
export function tripwire(what = 'the process'): Tripwire {
  const seen: unknown[] = [];
  let fail: (error: unknown) => void = () => undefined;
  const tripped = new Promise<never>((_resolve, reject) => {
    fail = reject;
  });
  tripped.catch(() => undefined);
  const onFailure = (error: unknown): void => {
    seen.push(error);
    fail(new Error(`${what} would have exited: ${(error as Error)?.stack ?? String(error)}`));
  };
  process.on('unhandledRejection', onFailure);
  process.on('uncaughtException', onFailure);
  return {
    tripped,
    seen,
    remove() {
      process.off('unhandledRejection', onFailure);
      process.off('uncaughtException', onFailure);
    },
  };
}
