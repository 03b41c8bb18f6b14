// The Debian Chromium and the flags that work for it here (../shared/TESTING.md):
// as root, and on a host with only a loopback interface. One list for the
// browser tests, the end-to-end tests and the benchmarks.
import { existsSync } from 'node:fs';

/** Path of the Chromium binary: CHROMIUM_PATH, else Debian's /usr/bin/chromium when present. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);

/** Flags every launch uses. The last two give WebRTC 127.0.0.1 candidates on a loopback-only host. */
export const CHROMIUM_FLAGS = Object.freeze([
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--use-fake-ui-for-media-stream',
  '--allow-loopback-in-peer-connection',
]);
