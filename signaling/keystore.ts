/**
 * `Keystore`: a backend's access to its project's secrets and signed CDN
 * URLs. Backend services only: it holds the project token.
 *
 * ```ts
 * const keystore = new Keystore(res.locals.PLATFORM_PROJECT_ID, res.locals.PLATFORM_PROJECT_TOKEN);
 * const apiKey = await keystore.resolveValue(res.locals.platform.api.key); // platform-keystore://…
 * const url = await keystore.generateSignedUrl(`${cdnUrl}/${projectId}/intro.mp4`); // 1 hour for a video
 * ```
 */
import { PlatformError } from '../protocol/errors.js';
import { callServices, projectHeaders, resolveProjectCredentials, resolveServicesUrl } from './services-client.js';

/** Options of {@link Keystore}. */
export interface KeystoreOptions {
  /** Base URL of the platform services. Default `PLATFORM_SERVICES_URL`, else `PLATFORM_DISPATCH_URL`. */
  readonly url?: string;
  /** Timeout of one call. Default 10000. */
  readonly timeoutMs?: number;
}

/** What an upload stored. */
export interface UploadedFile {
  /** The permanent URL (served only with project credentials; sign it to share). */
  readonly url: string;
  readonly path: string;
  readonly size: number;
  readonly contentType: string;
}

/** A project's secrets and signed URLs. */
export class Keystore {
  /** The project this keystore acts for. */
  readonly projectId: string;
  readonly #token: string;
  readonly #url: string;
  readonly #timeoutMs: number | undefined;

  /**
   * `projectId` and `projectToken` are required. Only when an argument is
   * undefined is it read from `PLATFORM_PROJECT_ID` / `PLATFORM_PROJECT_TOKEN`;
   * for an instant remix pass `res.locals.PLATFORM_PROJECT_ID` and
   * `res.locals.PLATFORM_PROJECT_TOKEN` (set by VccMiddleware).
   */
  constructor(projectId?: string, projectToken?: string, options: KeystoreOptions = {}) {
    const credentials = resolveProjectCredentials(projectId, projectToken, 'new Keystore()');
    this.projectId = credentials.projectId;
    this.#token = credentials.projectToken;
    this.#url = resolveServicesUrl(options.url);
    this.#timeoutMs = options.timeoutMs;
  }

  /**
   * A URL that serves `resource` (the full URL of a file on this project's
   * CDN) for `expirySeconds`: default 1 hour for videos, 5 minutes for the
   * rest. Add query parameters (resize, crop) to the returned URL, not to
   * `resource`. A resource outside the project's CDN rejects with FORBIDDEN.
   */
  async generateSignedUrl(resource: string, expirySeconds?: number): Promise<string> {
    if (typeof resource !== 'string' || resource === '') throw new PlatformError('INVALID_ARGUMENT', 'resource must be the full URL of a CDN file');
    const body = await this.#call('/services/keystore/sign', { resource, ...(expirySeconds === undefined ? {} : { expirySeconds }) });
    return stringField(body, 'url');
  }

  /** The secret behind `keyPath` (a secret VCC's value). Another project's key path rejects with FORBIDDEN, an unknown one with NOT_FOUND. */
  async resolveValue(keyPath: string): Promise<string> {
    if (typeof keyPath !== 'string') throw new PlatformError('INVALID_ARGUMENT', 'keyPath must be a string');
    return stringField(await this.#call('/services/keystore/resolve', { keyPath }), 'value');
  }

  /** Stores a secret for this project (under `name`, replacing it, or a new random name) and returns its key path. */
  async storeSecret(value: string, name?: string): Promise<string> {
    return stringField(await this.#call('/services/keystore/secrets', { value, ...(name === undefined ? {} : { name }) }), 'keyPath');
  }

  /** Uploads a file to the project CDN at `path` (e.g. `media/intro.mp4`). */
  async upload(path: string, body: Uint8Array, contentType: string): Promise<UploadedFile> {
    const answer = await callServices(this.#url, `/services/cdn/${path}`, {
      method: 'PUT',
      headers: { ...projectHeaders(this.projectId, this.#token), 'content-type': contentType },
      body,
      ...(this.#timeoutMs === undefined ? {} : { timeoutMs: this.#timeoutMs }),
    });
    return { url: stringField(answer, 'url'), path: stringField(answer, 'path'), size: Number(answer['size']), contentType: stringField(answer, 'contentType') };
  }

  #call(path: string, json: Record<string, unknown>): Promise<Record<string, unknown>> {
    return callServices(this.#url, path, {
      headers: projectHeaders(this.projectId, this.#token),
      json,
      ...(this.#timeoutMs === undefined ? {} : { timeoutMs: this.#timeoutMs }),
    });
  }
}

/** A string field of an answer, or INTERNAL. */
export function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string') throw new PlatformError('INTERNAL', `the platform services answered without "${name}"`);
  return value;
}
