/**
 * A TCP port as people type it (`--port`, `PORT=`): a whole number from 0 (any free port) to
 * 65535, in decimal digits. Anything else is refused with a sentence, never left to `listen()`,
 * whose RangeError arrives as a stack.
 */
export function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text.trim())) return null;
  const port = Number(text.trim());
  return port <= 65_535 ? port : null;
}

/** What a refused port is told. */
export const PORT_RULE = 'a whole number from 0 (any free port) to 65535';
