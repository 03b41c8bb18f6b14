/**
 * The project CDN: files stored under `<dataDir>/cdn/<projectId>/<path>`.
 *
 * Uploads (the editor's file controls) are checked before a byte is kept:
 * the content type must be on the allow-list and match the file's extension
 * (so a script cannot arrive as `.png`), the size is capped while streaming
 * (not only by Content-Length), and the path is a plain relative path of
 * safe segments: no `..`, no leading dot, no percent-escapes, no
 * backslashes, no NUL. A file is written to a temporary name, fsync'd,
 * renamed, and its directory fsync'd before the upload is acknowledged, so a
 * reader never sees half an upload and an acknowledged one survives a power
 * cut. Temporary files a killed writer left behind are removed when the
 * store opens ({@link CdnStore.open}); one store owns its directory. A path
 * that collides with what is stored (a directory there, or a file where a
 * directory would have to be) is refused with INVALID_PATH (409).
 *
 * Serving: one `Range: bytes=…` range per request (what video players ask),
 * `206`/`416` as RFC 9110 says; files are sent with `nosniff` and a sandbox
 * CSP so even an allowed text type can never run as a page of the server's origin.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PlatformError } from '../../protocol/errors.js';

/** Content types the CDN knows, and the file extensions each may have. SVG and HTML are left out on purpose: they can run script. */
export const KNOWN_CONTENT_TYPES: Readonly<Record<string, readonly string[]>> = {
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'image/avif': ['avif'],
  'audio/mpeg': ['mp3'],
  'audio/ogg': ['ogg', 'oga'],
  'audio/wav': ['wav'],
  'audio/webm': ['weba'],
  'video/mp4': ['mp4', 'm4v'],
  'video/webm': ['webm'],
  'video/ogg': ['ogv'],
  'application/vnd.apple.mpegurl': ['m3u8'],
  'video/mp2t': ['ts'],
  'text/plain': ['txt'],
  'application/json': ['json'],
  'application/pdf': ['pdf'],
  'font/woff2': ['woff2'],
};

/** Default largest upload: 25 MB (the media VCC default). */
export const DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
/** Default of {@link CdnLimits.maxTransformBytesInFlight}: 64 MB. */
export const DEFAULT_MAX_TRANSFORM_BYTES_IN_FLIGHT = 64 * 1024 * 1024;

/** Limits of the CDN. */
export interface CdnLimits {
  /** Largest upload in bytes. Default 25 MB. */
  readonly maxUploadBytes?: number;
  /** Content types accepted for upload; each must be one of {@link KNOWN_CONTENT_TYPES}. Default: all of them. */
  readonly allowedContentTypes?: readonly string[];
  /**
   * Bytes of files read for the `transform` hook at once (each call gets the whole file); a
   * request past it is answered 503 UNAVAILABLE. One file is always let through. Default 64 MB.
   */
  readonly maxTransformBytesInFlight?: number;
}

/** Rewrites a file for the query parameters of a signed URL (resize, crop…); undefined serves the file as is. */
export type CdnTransform = (input: {
  readonly projectId: string;
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
  readonly query: URLSearchParams;
}) => Promise<{ readonly body: Uint8Array; readonly contentType: string } | undefined>;

/** A stored file. */
export interface StoredFile {
  readonly path: string;
  readonly size: number;
  readonly contentType: string;
}

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
const MAX_SEGMENTS = 8;
/** The temporary name of an upload: `<file>.<12 hex>.tmp`. No stored file ends so: `.tmp` is not an allowed extension. */
const TEMPORARY = /\.[0-9a-f]{12}\.tmp$/;
/** Errors of a path that collides with the tree: a directory where the file goes, a file where a directory must be. */
const COLLISION_ERRORS = new Set(['EISDIR', 'ENOTDIR', 'EEXIST', 'ENOTEMPTY']);

/** Files of every project under one root directory. */
export class CdnStore {
  /**
   * Opens the store at `root`: removes the temporary files of uploads a killed
   * writer left behind (never acknowledged, so nobody waits for them), then
   * returns the store. Prefer this to the constructor.
   */
  static async open(root: string, limits: CdnLimits = {}): Promise<CdnStore> {
    const store = new CdnStore(root, limits);
    await removeTemporaries(store.root);
    return store;
  }

  readonly root: string;
  readonly maxUploadBytes: number;
  readonly maxTransformBytesInFlight: number;
  readonly #allowed: ReadonlyMap<string, readonly string[]>;
  /** Bytes read for transforms not finished yet. */
  #transformBytes = 0;

  constructor(root: string, limits: CdnLimits = {}) {
    this.root = resolve(root);
    this.maxUploadBytes = limits.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
    this.maxTransformBytesInFlight = limits.maxTransformBytesInFlight ?? DEFAULT_MAX_TRANSFORM_BYTES_IN_FLIGHT;
    const allowed = new Map<string, readonly string[]>();
    for (const type of limits.allowedContentTypes ?? Object.keys(KNOWN_CONTENT_TYPES)) {
      const extensions = KNOWN_CONTENT_TYPES[type];
      if (!extensions) throw new PlatformError('INVALID_CONFIG', `the CDN does not know the content type "${type}"`);
      allowed.set(type, extensions);
    }
    this.#allowed = allowed;
  }

  /**
   * Checks a path inside a project's space (raw, as it appears in a URL) and
   * returns it; throws INVALID_ARGUMENT for anything that could leave the space.
   */
  checkPath(path: string): string {
    // Control characters are what this refuses, so the pattern names them.
    // eslint-disable-next-line no-control-regex
    if (/[%\\\0]|[\x00-\x1f\x7f]/.test(path)) throw new PlatformError('INVALID_ARGUMENT', 'a CDN path may not hold %, \\ or control characters');
    const segments = path.split('/');
    if (segments.length > MAX_SEGMENTS || !segments.every((segment) => SEGMENT.test(segment))) {
      throw new PlatformError('INVALID_ARGUMENT', `a CDN path is 1 to ${MAX_SEGMENTS} segments of [A-Za-z0-9._-], none starting with a dot`);
    }
    return path;
  }

  /** The content type a path is served with (by its extension), or undefined when the CDN does not serve it. */
  contentTypeOf(path: string): string | undefined {
    const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
    if (extension === undefined) return undefined;
    for (const [type, extensions] of this.#allowed) if (extensions.includes(extension)) return type;
    return undefined;
  }

  /** Absolute file of `path` in `projectId`, checked to stay inside the project's directory. */
  fileOf(projectId: string, path: string): string {
    const projectDir = resolve(this.root, projectId);
    const file = resolve(projectDir, this.checkPath(path));
    // Belt and braces: the segment check already rules this out.
    if (!file.startsWith(projectDir + sep)) throw new PlatformError('INVALID_ARGUMENT', 'the path leaves the project');
    return file;
  }

  /** Stores the body of `req` at `path`. Checks the type and streams with the size cap. */
  async upload(projectId: string, path: string, declaredType: string | undefined, req: IncomingMessage): Promise<StoredFile> {
    const file = this.fileOf(projectId, path);
    const contentType = (declaredType ?? '').split(';')[0]!.trim().toLowerCase();
    const extensions = this.#allowed.get(contentType);
    if (!extensions) throw new PlatformError('UNSUPPORTED', `content type "${contentType || 'none'}" is not accepted; allowed: ${[...this.#allowed.keys()].join(', ')}`);
    const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
    if (extension === undefined || !extensions.includes(extension)) {
      throw new PlatformError('INVALID_ARGUMENT', `a ${contentType} file must end in .${extensions.join(' or .')}`);
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxUploadBytes) {
      throw new PlatformError('PAYLOAD_TOO_LARGE', `the upload is ${declared} bytes, over the limit of ${this.maxUploadBytes}`);
    }
    const directory = dirname(file);
    // Refused before a byte is read when the collision is already there; the rename below catches a racing one.
    const existing = await stat(file).catch(() => undefined);
    if (existing?.isDirectory()) throw collision(path);
    let created: string | undefined;
    try {
      created = await mkdir(directory, { recursive: true });
    } catch (error) {
      throw isCollision(error) ? collision(path, error) : error;
    }
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    let size = 0;
    const limit = this.maxUploadBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > limit) callback(new PlatformError('PAYLOAD_TOO_LARGE', `the upload is over the limit of ${limit} bytes`));
        else callback(null, chunk);
      },
    });
    try {
      await pipeline(req, counter, createWriteStream(temporary, { flags: 'wx', mode: 0o644 }));
      // The bytes reach the disk before the name does, and the name before the answer: an
      // acknowledged upload is whole after a power cut, never empty or missing.
      await syncPath(temporary);
      await rename(temporary, file);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw isCollision(error) ? collision(path, error) : error;
    }
    // The new entry, and the entries of directories mkdir just made, up to the first that existed.
    await syncPath(directory);
    if (created !== undefined) {
      for (let child = directory; child !== dirname(created) && child.startsWith(this.root + sep); child = dirname(child)) await syncPath(dirname(child));
    }
    return { path, size, contentType };
  }

  /** Answers `req` with the file at `path` of `projectId` (Range aware); 404 when there is none. */
  async serve(
    req: IncomingMessage,
    res: ServerResponse,
    projectId: string,
    path: string,
    options: { readonly query?: URLSearchParams; readonly transform?: CdnTransform; readonly maxAgeSeconds?: number } = {},
  ): Promise<void> {
    const file = this.fileOf(projectId, path);
    const contentType = this.contentTypeOf(path);
    const info = contentType === undefined ? undefined : await stat(file).catch(() => undefined);
    if (contentType === undefined || !info?.isFile()) throw new PlatformError('NOT_FOUND', 'no such file');
    const headers: Record<string, string | number> = {
      'content-type': contentType,
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': `private, max-age=${Math.max(0, Math.floor(options.maxAgeSeconds ?? 0))}`,
    };
    const range = req.headers.range;
    const query = options.query;
    if (options.transform && query && [...query.keys()].length > 0 && range === undefined) {
      const transformed = await this.#transform(options.transform, { projectId, path, contentType, file, size: info.size, query });
      if (transformed) {
        res.writeHead(200, { ...headers, 'content-type': transformed.contentType, 'content-length': transformed.body.byteLength });
        res.end(req.method === 'HEAD' ? undefined : transformed.body);
        return;
      }
    }
    let start = 0;
    let end = info.size - 1;
    let status = 200;
    if (typeof range === 'string') {
      const parsed = parseRange(range, info.size);
      if (parsed === 'unsatisfiable') {
        res.writeHead(416, { ...headers, 'content-range': `bytes */${info.size}`, 'content-length': 0 });
        res.end();
        return;
      }
      if (parsed) {
        ({ start, end } = parsed);
        status = 206;
        headers['content-range'] = `bytes ${start}-${end}/${info.size}`;
      }
    }
    headers['content-length'] = info.size === 0 ? 0 : end - start + 1;
    res.writeHead(status, headers);
    if (req.method === 'HEAD' || info.size === 0) {
      res.end();
      return;
    }
    await pipeline(createReadStream(file, { start, end }), res);
  }

  /**
   * Runs the transform hook on the whole file, within maxTransformBytesInFlight: a signed URL is
   * public, and without the bound a crowd of requests with a query would each hold a copy of a
   * 25 MB file until memory runs out.
   */
  async #transform(
    transform: CdnTransform,
    input: { readonly projectId: string; readonly path: string; readonly contentType: string; readonly file: string; readonly size: number; readonly query: URLSearchParams },
  ): Promise<Awaited<ReturnType<CdnTransform>>> {
    if (this.#transformBytes > 0 && this.#transformBytes + input.size > this.maxTransformBytesInFlight) {
      throw new PlatformError('UNAVAILABLE', 'the CDN is busy transforming files; retry shortly');
    }
    this.#transformBytes += input.size;
    try {
      const { projectId, path, contentType, query } = input;
      return await transform({ projectId, path, contentType, body: await readFile(input.file), query });
    } finally {
      this.#transformBytes -= input.size;
    }
  }
}

/** fsync of a file or a directory (opened read-only: Linux and macOS sync either through any descriptor). */
async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isCollision(error: unknown): boolean {
  return COLLISION_ERRORS.has(String((error as { code?: unknown } | null)?.code));
}

function collision(path: string, cause?: unknown): PlatformError {
  return new PlatformError('INVALID_PATH', `the CDN path "${path}" collides with a stored file or directory`, cause === undefined ? {} : { cause });
}

/** Deletes upload temporaries under `root` (absent root: nothing to do). Iterative, so a deep tree costs no stack. */
async function removeTemporaries(root: string): Promise<void> {
  const pending = [root];
  for (let directory = pending.pop(); directory !== undefined; directory = pending.pop()) {
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') continue;
      throw error;
    }
    for (const entry of entries) {
      const path = resolve(directory, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile() && TEMPORARY.test(entry.name)) await unlink(path).catch(() => undefined);
    }
  }
}

/**
 * Parses a single-range `Range` header against a file of `size` bytes.
 * Returns the inclusive range, 'unsatisfiable', or null to ignore the header
 * (several ranges, or a unit other than bytes: a full 200 answer is allowed).
 */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}
