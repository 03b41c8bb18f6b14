/**
 * The HTTP side of the backend clients (Keystore, Identity): where the
 * services are, and one JSON call with coded errors. Node only.
 *
 * Where: the `url` option, else `PLATFORM_SERVICES_URL`, else
 * `PLATFORM_DISPATCH_URL` (the signaling server, which mounts the services;
 * a `ws(s)://` URL is turned into `http(s)://`).
 */
import { deserializeError, PlatformError } from '../protocol/errors.js';

/** Environment variable naming the services' base URL (wins over PLATFORM_DISPATCH_URL). */
export const SERVICES_URL_ENV = 'PLATFORM_SERVICES_URL';
/** Environment variable naming the signaling server's URL. */
export const DISPATCH_URL_ENV = 'PLATFORM_DISPATCH_URL';
/** How long one call to the services may take. */
export const DEFAULT_SERVICES_TIMEOUT_MS = 10_000;

/** The services' base URL (no trailing slash); INVALID_ARGUMENT when none is configured. */
export function resolveServicesUrl(url: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): string {
  // PLATFORM_DISPATCH_URL may list several nodes (comma separated): any of them serves the services.
  const chosen = url ?? env[SERVICES_URL_ENV] ?? env[DISPATCH_URL_ENV]?.split(',')[0]?.trim();
  if (chosen === undefined || chosen === '') {
    throw new PlatformError('INVALID_ARGUMENT', `no services URL: pass { url }, or set ${SERVICES_URL_ENV} or ${DISPATCH_URL_ENV}`);
  }
  let parsed: URL;
  try {
    parsed = new URL(chosen);
  } catch {
    throw new PlatformError('INVALID_ARGUMENT', `the services URL "${chosen}" is not a URL`);
  }
  if (parsed.protocol === 'ws:') parsed.protocol = 'http:';
  else if (parsed.protocol === 'wss:') parsed.protocol = 'https:';
  else if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new PlatformError('INVALID_ARGUMENT', 'the services URL must be http(s) or ws(s)');
  if (parsed.username || parsed.password || parsed.search) throw new PlatformError('INVALID_ARGUMENT', 'the services URL carries no credentials or query: they go in headers');
  return parsed.origin + parsed.pathname.replace(/\/+$/, '');
}

/** POSTs JSON (or sends `body` as is) and returns the JSON answer; a refusal rejects with its PlatformError. */
export async function callServices(
  baseUrl: string,
  path: string,
  init: { method?: string; headers: Record<string, string>; json?: unknown; body?: Uint8Array; timeoutMs?: number },
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(baseUrl + path, {
      method: init.method ?? 'POST',
      headers: init.json === undefined ? init.headers : { ...init.headers, 'content-type': 'application/json' },
      // A copy in a plain ArrayBuffer: fetch's types refuse views over a SharedArrayBuffer.
      body: init.json === undefined ? (init.body ? new Uint8Array(init.body).buffer : null) : JSON.stringify(init.json),
      signal: AbortSignal.timeout(init.timeoutMs ?? DEFAULT_SERVICES_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (error) {
    const timedOut = (error as { name?: unknown }).name === 'TimeoutError';
    throw new PlatformError(timedOut ? 'CALL_TIMEOUT' : 'NOT_CONNECTED', `the platform services at ${baseUrl} ${timedOut ? 'did not answer in time' : 'are unreachable'}`, {
      cause: error,
    });
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new PlatformError('INTERNAL', `the platform services answered ${response.status} without JSON`);
  }
  if (!response.ok) throw deserializeError((body as { error?: unknown } | null)?.error);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new PlatformError('INTERNAL', 'the platform services answered with no object');
  return body as Record<string, unknown>;
}

/** Project id and token from the arguments, else (only when undefined) from the environment; INVALID_ARGUMENT when missing. */
export function resolveProjectCredentials(
  projectId: string | undefined,
  projectToken: string | undefined,
  what: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): { projectId: string; projectToken: string } {
  const id = projectId === undefined ? env['PLATFORM_PROJECT_ID'] : projectId;
  const token = projectToken === undefined ? env['PLATFORM_PROJECT_TOKEN'] : projectToken;
  const missing = [
    typeof id === 'string' && id !== '' ? null : 'projectId (or PLATFORM_PROJECT_ID)',
    typeof token === 'string' && token !== '' ? null : 'projectToken (or PLATFORM_PROJECT_TOKEN)',
  ].filter((item): item is string => item !== null);
  if (missing.length > 0) throw new PlatformError('INVALID_ARGUMENT', `${what} needs ${missing.join(' and ')}`);
  return { projectId: id as string, projectToken: token as string };
}

/** The headers of project credentials. */
export function projectHeaders(projectId: string, projectToken: string): Record<string, string> {
  return { 'x-platform-project-id': projectId, authorization: `Bearer ${projectToken}` };
}
