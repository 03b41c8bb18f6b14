/**
 * Compile-time types of a template's custom values.
 *
 * `platform-vcc preinstall-ts` (and the Vite plugin) write a `.d.ts` that
 * augments {@link CustomizationTypes} with the template's scopes and keys.
 * Once it is there, `get(['scope', 'key'])` is checked: a path that does not
 * exist is a compile error and the result has the VCC's type. Without it,
 * any path of strings is accepted and the result is `unknown`.
 */

/**
 * Augment this interface (the generated `.d.ts` does it) with
 * `values: { [scope]: { [key]: type } }`.
 *
 * @example
 * declare module 'platform-kit/guest' {
 *   interface CustomizationTypes { values: { card: { title: string } } }
 * }
 */
// Empty on purpose: a template's generated .d.ts fills it in by declaration merging.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CustomizationTypes {}

/** Values the platform fills in for every template. */
export interface PredefinedValues {
  readonly metadata: { readonly projectId: string };
  readonly serviceMap: { readonly [serviceName: string]: string | undefined };
}

type DeclaredValues = CustomizationTypes extends { values: infer V } ? V : never;
type AllValues = [DeclaredValues] extends [never] ? never : DeclaredValues & PredefinedValues;

/**
 * A path `get()` accepts: any array of strings (numbers index lists inside a
 * value) until types are generated; then `[scope]` (the whole scope), a
 * declared `[scope, key]`, or a declared `[scope, key]` followed by segments
 * inside its value (typed `unknown`: the generated types stop at keys).
 */
export type VccValuePath = [AllValues] extends [never]
  ? readonly (string | number)[]
  : {
      [Scope in keyof AllValues & string]:
        readonly [Scope] | readonly [Scope, keyof AllValues[Scope] & string] | readonly [Scope, keyof AllValues[Scope] & string, string | number, ...(string | number)[]];
    }[keyof AllValues & string];

/** The type of the value at `Path`: `unknown` until types are generated. */
export type VccValueAt<Path> = [AllValues] extends [never]
  ? unknown
  : Path extends readonly [infer Scope]
    ? Scope extends keyof AllValues
      ? AllValues[Scope]
      : unknown
    : Path extends readonly [infer Scope, infer Key]
      ? Scope extends keyof AllValues
        ? Key extends keyof AllValues[Scope]
          ? AllValues[Scope][Key]
          : unknown
        : unknown
      : unknown;
