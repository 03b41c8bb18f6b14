/**
 * The `platform-kit` command: `create <dir>` (a new template project) and `dev` (the
 * workbench, in the template's folder). Parsing and messages here; kit-bin.ts wires the process.
 */
import { isPlatformError } from '../protocol/errors.js';
import { createProject } from './create/create-project.js';
import { DEFAULT_DEV_PORT, startDev, type DevServer } from './dev/dev-server.js';

const USAGE = `usage:
  platform-kit create <dir>     a new template project in <dir> (empty or new)
  platform-kit dev [--port N]   the workbench for the template in this folder (default port ${DEFAULT_DEV_PORT}; 0: any free one)`;

/** Where the command writes. */
export interface KitIo {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  readonly cwd: string;
}

/** Runs `create`; or starts `dev` and returns its server (null when the command is done or failed, with `exitCode`). */
export async function runKitCli(args: readonly string[], io: KitIo): Promise<{ exitCode: number; dev: DevServer | null }> {
  const [command, ...rest] = args;
  try {
    if (command === 'create') {
      const dir = rest[0];
      if (!dir || rest.length > 1) return usage(io, 'create takes one folder');
      const created = await createProject(dir.startsWith('/') ? dir : `${io.cwd}/${dir}`);
      io.stdout(`  created ${created.dir}\n\n  cd ${dir}\n  npm install\n  npm run dev`);
      return { exitCode: 0, dev: null };
    }
    if (command === 'dev') {
      const port = parsePort(rest);
      if (typeof port === 'string') return usage(io, port);
      const started = performance.now();
      const dev = await startDev({ root: io.cwd, ...(port === undefined ? {} : { port }) });
      io.stdout(
        [
          '',
          `  platform-kit dev  ready in ${Math.round(performance.now() - started)} ms`,
          '',
          `  workbench          ${dev.url}`,
          `  template (2nd origin) ${dev.templateUrl}`,
          `  project            ${dev.projectId} (development, in memory; the workbench tells the template)`,
          '',
        ].join('\n'),
      );
      return { exitCode: 0, dev };
    }
    return usage(io, command === undefined ? 'no command' : `unknown command ${command}`);
  } catch (error) {
    const { code, port, address } = error as { code?: string; port?: number; address?: string };
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      io.stderr(
        `platform-kit dev: ${address ?? ''}:${port ?? ''} ${code === 'EADDRINUSE' ? 'is in use' : 'needs privileges'}. Choose another: platform-kit dev --port 5181 (0 takes any free port).`,
      );
      return { exitCode: 1, dev: null };
    }
    if (isPlatformError(error)) {
      io.stderr(`${error.message} (${error.code})`);
      return { exitCode: 1, dev: null };
    }
    throw error;
  }
}

/** `--port N`: a port, undefined for the default, or what is wrong. */
function parsePort(args: readonly string[]): number | undefined | string {
  if (args.length === 0) return undefined;
  if (args.length !== 2 || args[0] !== '--port') return `dev takes only --port N, not ${args.join(' ')}`;
  const text = args[1]!;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65_535)) return `--port takes a port from 0 to 65535, not ${JSON.stringify(text)}`;
  return port;
}

function usage(io: KitIo, problem: string): { exitCode: number; dev: null } {
  io.stderr(`platform-kit: ${problem} (INVALID_ARGUMENT)\n${USAGE}`);
  return { exitCode: 2, dev: null };
}
