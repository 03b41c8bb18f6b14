// Helpers of the services-* tests: the services router alone on a real HTTP
// server on port 0 (with a test clock, which the signaling server does not
// offer), its state in a throwaway directory, and raw HTTP for what no client
// would send. signaling-services.test.ts runs the same routes mounted in
// createSignalingServer.
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlatformError } from '../../signaling/index.js';
import { createServicesRouter, type ServicesRouter, type ServicesRouterOptions } from '../../signaling/services/router.js';
import { sendError } from '../../signaling/services/http.js';

/** Options of {@link createServicesServer}: the router's, with `cdnUrl` defaulting to `<url>/cdn`. */
export type ServicesServerOptions = ServicesRouterOptions;

/** The router on its own HTTP server. */
export interface ServicesServer {
  readonly ready: Promise<void>;
  readonly url: string;
  readonly router: ServicesRouter;
  close(): Promise<void>;
}

/** Runs the services router alone on 127.0.0.1 and a free port. */
export function createServicesServer(options: ServicesServerOptions): ServicesServer {
  let router: ServicesRouter | undefined;
  let url = '';
  const server = createServer((req, res) => {
    if (!router) return sendError(res, new PlatformError('INTERNAL', 'the services are starting'));
    void router.handle(req, res).then((handled) => {
      if (!handled) sendError(res, new PlatformError('NOT_FOUND', 'no such route'));
    });
  });
  const ready = new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve();
    });
  }).then(async () => {
    router = await createServicesRouter({ ...options, cdnUrl: options.cdnUrl ?? `${url}/cdn` });
  });
  return {
    ready,
    get url() {
      return url;
    },
    get router() {
      if (!router) throw new Error('not ready');
      return router;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await router?.close();
    },
  };
}

export const ADMIN_KEY = 'the-platform-admin-key-for-tests';
export const TEMPLATE = { id: 'template', token: 'template-project-token', owner: 'alice' } as const;
export const REMIX = { id: 'remix-1', token: 'remix-project-token', owner: 'bob' } as const;

export interface Harness {
  readonly server: ServicesServer;
  readonly url: string;
  readonly dataDir: string;
  /** Closes the server and deletes its state (unless `keepData`). */
  stop(keepData?: boolean): Promise<void>;
}

export async function startServices(options: Partial<ServicesServerOptions> = {}, dataDir?: string): Promise<Harness> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'platform-services-')));
  const server = createServicesServer({
    dataDir: dir,
    adminKey: ADMIN_KEY,
    projects: {
      [TEMPLATE.id]: { token: TEMPLATE.token, ownerUserId: TEMPLATE.owner },
      [REMIX.id]: { token: REMIX.token, ownerUserId: REMIX.owner },
      plain: 'plain-project-token',
    },
    ...options,
  });
  await server.ready;
  return {
    server,
    url: server.url,
    dataDir: dir,
    async stop(keepData = false) {
      await server.close();
      if (!keepData) await rm(dir, { recursive: true, force: true });
    },
  };
}

export function projectHeaders(project: { id: string; token: string }): Record<string, string> {
  return { 'x-platform-project-id': project.id, authorization: `Bearer ${project.token}` };
}

/** POSTs JSON with fetch; returns status and parsed body. */
export async function post(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The error code of a failed answer. */
export function codeOf(body: Record<string, unknown>): unknown {
  return (body['error'] as { code?: unknown } | undefined)?.code;
}

/** A raw HTTP request with the path exactly as given (fetch would normalize `..`). */
export function raw(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string | number>; body?: Buffer | Buffer[] },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method: options.method ?? 'GET', path: options.path, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const parts = options.body === undefined ? [] : Array.isArray(options.body) ? options.body : [options.body];
    for (const part of parts) req.write(part);
    req.end();
  });
}

/** Decodes the payload of a JWT without verifying it. */
export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The code of the error `promise` rejects with; fails the test when it resolves. */
export async function codeOfRejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  assert.fail('expected a rejection');
}
