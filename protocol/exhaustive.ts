/**
 * TypeScript's exhaustiveness idiom, for every union the kit switches on (wire
 * frames, store messages, kinds): a `switch` names each member and ends in
 * `default: return unreachable(value, '…')`. While every member has its case
 * the value there is `never`; a member added to the union makes that line a
 * compile error naming it, in every switch at once.
 */
import { PlatformError } from './errors.js';

/**
 * The default of a switch that names every member of a union. Compiles only while it does;
 * reached at run time only by a value from outside the types (a bug), which throws `INTERNAL`.
 */
export function unreachable(value: never, what: string): never {
  const shown = typeof value === 'object' && value !== null ? String((value as { type?: unknown; kind?: unknown }).type ?? (value as { kind?: unknown }).kind) : String(value);
  throw new PlatformError('INTERNAL', `unexpected ${what}: ${shown.slice(0, 64)}`);
}

/**
 * `list` as it is, where it names every member of `All`: a list of names that must be complete
 * (an allow-list of methods, a set of frame types) compiles only while it is, and the error
 * names what is missing (`missing: "newMethod"`).
 */
export function listingEvery<All extends string>() {
  return <const List extends readonly All[]>(list: List & ([Exclude<All, List[number]>] extends [never] ? unknown : { readonly missing: Exclude<All, List[number]> })): List =>
    list;
}
