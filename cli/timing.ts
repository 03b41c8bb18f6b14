/**
 * Timings shared by `platform-vcc watch` and the Vite plugin. In a module of
 * their own so that the Vite plugin does not load chokidar (Vite has its own
 * watcher).
 */

/**
 * How long a watcher waits after a file event before it builds. Editors
 * often save in several steps (truncate, write, rename); one build after the
 * last of them is enough, and 40 ms keeps a rebuild well under 300 ms.
 */
export const DEFAULT_DEBOUNCE_MS = 40;

/**
 * How long after a build a watcher looks at the files once more. File
 * events can be lost (chokidar drops an event that follows another for the
 * same file within 5 ms, and the build's own read is such an event), so a
 * write that lands just as a build reads is caught by this check instead.
 */
export const VERIFY_DELAY_MS = 60;
