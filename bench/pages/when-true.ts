/**
 * Resolves true once `check()` holds (looked at every 25 ms in the page), false after `timeoutMs`.
 * The players-meet members' whenDone: Node waits on this one call per member instead of polling
 * every member over the DevTools protocol, which loaded the browser process while they met.
 */
export function whenTrue(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  return new Promise((resolve) => {
    const look = (): void => {
      if (check()) resolve(true);
      else if (performance.now() > deadline) resolve(false);
      else setTimeout(look, 25);
    };
    look();
  });
}
