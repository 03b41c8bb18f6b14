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

/** Starts `bin.ts` with project `projectId:token` and `args`; resolves once it prints its URL. */
export async function startSignalingProcess(rootDir: string, project: string, args: readonly string[] = []): Promise<SignalingProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'platform-kit-bench-signaling-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'signaling/bin.ts', '--port', '0', '--host', '127.0.0.1', '--project', project, '--data-dir', dataDir, ...args], {
    cwd: rootDir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('the signaling server did not start within 20 s')), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /platform-kit signaling: (\S+)/.exec(buffer);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the signaling server exited with ${code}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url, child, stop };
}
