/**
 * The programmatic API of `platform-vcc`: what the command line and the Vite
 * plugin are made of, for build tools that want to drive them directly.
 */
export {
  createCustomizationBuilder,
  fingerprintCustomizationFiles,
  fingerprintsDiffer,
  formatProblem,
  CUSTOMIZATION_DIR,
  DEFAULT_OUT_DIR,
  EDITOR_KEY,
  MODULE_FILE_NAME,
  PROJECT_ID_ENV,
  SERVICE_URL_ENV_PREFIX,
  TYPES_FILE_NAME,
  type CustomizationBuilder,
  type CustomizationBuilderOptions,
  type CustomizationBuildResult,
  type CustomizationProblem,
  type Env,
} from './build-customization.js';
export { renderCustomizationModule, renderCustomizationTypes, GUEST_MODULE } from './generate.js';
export { parseJsonSource, pointerJoin, type JsonParseResult, type JsonKeyIssue } from './json-source.js';
export { runCli, USAGE, USAGE_EXIT_CODE, type CliIo } from './main.js';
export { platformKit, VIRTUAL_MODULE_ID, type PlatformKitPluginOptions } from './vite-plugin.js';
export { watchCustomization, DEFAULT_DEBOUNCE_MS, VERIFY_DELAY_MS, type CustomizationWatcher, type WatchCustomizationOptions } from './watch.js';
