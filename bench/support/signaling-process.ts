/**
 * A real signaling server for a browser benchmark: `signaling/bin.ts` (the
 * `platform-kit-server` bin) in a child process on a loopback port, with a
 * temporary data folder, as a deployment runs it. Stopped by its pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The server child and its URL (`http://127.0.0.1:PORT`). */
export interface SignalingProcess {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `bin.ts` with project `projectId:token` and `args` (`nodeArgs`: Node's own flags, before the script); resolves once it prints its URL. */
export async function startSignalingProcess(rootDir: string, project: string, args: readonly string[] = [], nodeArgs: readonly string[] = []): Promise<SignalingProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'platform-kit-bench-signaling-'));
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', 'signaling/bin.ts', '--port', '0', '--host', '127.0.0.1', '--project', project, '--data-dir', dataDir, ...args],
    {
      cwd: rootDir,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const stop = async (): Promise<void> => {
    await stopChild(child);
    await rm(dataDir, { recursive: true, force: true });
  };
  const url = await printedUrl(child, /platform-kit signaling: (\S+)/, 'the signaling server').catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url, child, stop };
}

/** Stops `child` by SIGTERM; resolves once it has exited (at once if it already had). */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The URL `child` prints on its stdout (the first group of `pattern`); rejects if it exits first or takes over 20 s. */
export function printedUrl(child: ChildProcess, pattern: RegExp, name: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 20 s`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = pattern.exec(buffer);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}`));
    });
  });
}
