/**
 * TypeScript's exhaustiveness idiom, for every union the kit switches on (wire
 * frames, store messages, kinds): a `switch` names each member and ends in
 * `default: return unreachable(value, '…')`. While every member has its case
 * the value there is `never`; a member added to the union makes that line a
 * compile error naming it, in every switch at once.
 */
import { PlatformError } from './errors.js';

// Its own module, re-exported here: the guest's first load needs it (protocol/link.ts) and not unreachable().
export { listingEvery } from './listing-every.js';

/**
 * The default of a switch that names every member of a union. Compiles only while it does;
 * reached at run time only by a value from outside the types (a bug), which throws `INTERNAL`.
 */
export function unreachable(value: never, what: string): never {
  const shown = typeof value === 'object' && value !== null ? String((value as { type?: unknown; kind?: unknown }).type ?? (value as { kind?: unknown }).kind) : String(value);
  throw new PlatformError('INTERNAL', `unexpected ${what}: ${shown.slice(0, 64)}`);
}
