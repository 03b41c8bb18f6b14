// Lint: typescript-eslint's strict-type-checked config with type information (projectService
// finds each file's tsconfig: the root one, or test/fixtures/cli-out/typed-get's own program).
// `npm run lint` runs this, the formatter's check and the import-circle check (scripts/lint-circles.ts).
//
// Rules of strict-type-checked that are off, and why (each was run over the whole tree first):
// - no-non-null-assertion: with noUncheckedIndexedAccess every `list[i]` is `T | undefined`; the
//   code writes `list[i]!` where the bound was checked a line before. Rewriting ~500 of them as
//   branches that cannot run adds noise and catches nothing the tests do not.
// - no-confusing-void-expression: flags `() => doSomething()` arrows that return void, the kit's
//   ordinary listener style; a style rule, it found no defect.
// - no-unnecessary-condition: the kit checks at every door values whose type says they are fine,
//   because a template written in JavaScript, postMessage and the wire do not follow the types
//   (STYLE.md "check at the door"); the rule calls those checks dead code.
// - no-redundant-type-constituents: `KnownName | string` is written on purpose, so that editors
//   complete the known names while any string is accepted.
// - no-unnecessary-type-parameters: `get<T>()` and friends let a caller name the type it expects
//   (the spec's signatures); the rule wants them removed.
// - no-deprecated: the deprecated APIs used are deliberate fallbacks (execCommand copy where the
//   clipboard API is refused, peerjs's `key` for servers of the original SDK) or Vite 8 aliases
//   that still work on the Vite 6 and 7 the plugin supports (peerDependencies: vite >= 6).
// - require-await: an `async` function without `await` is written on purpose where a throw must
//   become a rejection (an interface that returns a promise: routes, stores, test stubs).
// In tests and benchmarks also:
// - unbound-method: test suites hand out closures through interfaces written with method syntax
//   (`const { mount } = feedSuite()`); none uses `this`.
// - no-base-to-string: tests print the frames their own sockets received (`String(data)` of a ws
//   frame that the test sent as text); the library's code keeps the rule.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeTest = { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] };

export default tseslint.config(
  {
    ignores: ['**/dist/', 'node_modules/', 'test-artifacts/', 'bench/_baseline/', 'bench/_built/', '**/.platform/generated/', '.platform-data/', '.prof/', '**/*.generated.*'],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The four the project asked for by name (strict-type-checked has the first two already).
      // node:test's test() and describe() return a promise the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [nodeTest] }],
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union lists every member, a default notwithstanding: a member added to the union is
      // named at every switch on it (the compiler's half is `unreachable(never)` in protocol/exhaustive.ts).
      // Switches over typeof or a character, whose defaults cover what no change can add, say so where they are.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Numbers and booleans print as themselves; objects, null and undefined in a message are the defect.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // The same at the door: `String(error.message)` of a foreign error is a check, not a no-op.
      '@typescript-eslint/no-unnecessary-type-conversion': 'off',
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      '@typescript-eslint/no-unnecessary-type-parameters': 'off',
      '@typescript-eslint/no-deprecated': 'off',
      // Its concern is objects used as maps (use a Map); the deletes here are of an HTTP header and
      // of process.env, whose API is delete.
      '@typescript-eslint/no-dynamic-delete': 'off',
      // Flags plain objects where a library declares a class type: peerjs declares its option bag as
      // a class, and a ws server hands out instances of the class it was given, typed WebSocket.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/require-await': 'off',
      // `f.apply(undefined, args)` says on purpose that `this` is undefined; `arguments` in rpc.ts's
      // served function spares an array per call on the link's hot path.
      'prefer-spread': 'off',
      'prefer-rest-params': 'off',
      // Rejecting with what a catch caught is a rethrow, whatever it is.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // `interface Detail extends Base {}` names an event's detail in the public types.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // Underscore-named parameters are kept on purpose (a signature the spec fixes).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/unbound-method': 'off', '@typescript-eslint/no-base-to-string': 'off' },
  },
  {
    // Written by platform-vcc (a reference to the template's generated types), not by hand.
    files: ['**/platform-env.d.ts'],
    rules: { '@typescript-eslint/triple-slash-reference': 'off' },
  },
  {
    // Type tests write `void expression` to evaluate a type without using the value, and declare
    // values only to read their types.
    files: ['test/types/**', '**/*.test-d.ts'],
    rules: { '@typescript-eslint/no-meaningless-void-operator': 'off', '@typescript-eslint/no-unused-vars': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // JavaScript files: the test runner's Node plugins, and fixtures written like templates of the original SDK (browser).
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        ['window', 'document', 'location', 'URLSearchParams', 'URL', 'Event', 'console', 'process', 'Buffer', 'setTimeout', 'clearTimeout', 'fetch'].map((name) => [
          name,
          'readonly',
        ]),
      ),
    },
  },
);
