#!/usr/bin/env node
/**
 * The `platform-kit` executable: process wiring only (kit-main.ts has the commands). `dev`
 * runs until Ctrl-C; a second Ctrl-C, or closing that takes over 3 s, exits at once.
 */
import { runKitCli } from './kit-main.js';

const { exitCode, dev } = await runKitCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  cwd: process.cwd(),
});
process.exitCode = exitCode;
if (dev) {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(130);
      stopping = true;
      setTimeout(() => process.exit(0), 3_000).unref();
      void dev.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
