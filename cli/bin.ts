#!/usr/bin/env node
/**
 * The `platform-vcc` executable. Only process wiring lives here; the
 * commands are in `main.ts` so tests can run them without a child process.
 */
import { runCli } from './main.js';

const stop = new AbortController();
// `once`: a second Ctrl-C while the watcher closes falls back to Node's default and ends the process.
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());

process.exitCode = await runCli(
  process.argv.slice(2),
  {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
    cwd: process.cwd(),
  },
  stop.signal,
);
