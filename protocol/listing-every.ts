/**
 * The exhaustiveness idiom for lists (exhaustive.ts re-exports it): apart so
 * that the guest's first load, which holds the link's method lists
 * (protocol/link.ts), holds nothing else of it.
 */

/**
 * `list` as it is, where it names every member of `All`: a list of names that must be complete
 * (an allow-list of methods, a set of frame types) compiles only while it is, and the error
 * names what is missing (`missing: "newMethod"`).
 */
export function listingEvery<All extends string>() {
  return <const List extends readonly All[]>(list: List & ([Exclude<All, List[number]>] extends [never] ? unknown : { readonly missing: Exclude<All, List[number]> })): List =>
    list;
}
