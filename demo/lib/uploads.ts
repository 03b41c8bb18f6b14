/**
 * The demo's anonymous uploads: `PUT /demo-api/upload` (the editor's upload function) and their
 * expiry.
 *
 * - The body is streamed, chunk by chunk with backpressure, into the CDN's own upload route
 *   (`PUT /services/cdn/uploads/<id>.<ext>` of the signaling server inside, on its loopback port):
 *   the CDN checks the type against the extension, caps the size while streaming, writes a
 *   temporary file, fsyncs and renames it. No body is ever held whole: an upload costs a stream's
 *   buffers (tens of KB), whatever its size.
 * - Before a byte of the body is read, the {@link UploadLedger} admits it or refuses it (quota per
 *   client address, uploads at once, the disk budget; upload-limits.ts); every chunk is counted
 *   again, so a chunked body or one that lies is stopped at the limit it passes.
 * - A refusal is answered at once with its code and status (413, 415, 429 with `retry-after`).
 *   The rest of the body is not kept: it is discarded for at most {@link LINGER_MS} and
 *   `maxUploadBytes`, so that a client still sending sees the answer (closing with unread bytes
 *   resets the connection, and the answer with it); past that the socket is destroyed.
 * - Every upload expires `ttlMs` after it was stored (its file's mtime, so the rule holds across
 *   restarts): a sweep at start and every `ttlMs / 4` (at most every minute) deletes the
 *   files, and `/media/uploads/…` answers 404 for an expired one even before the sweep.
 */
import { randomBytes } from 'node:crypto';
import { readdir, stat, unlink } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { deserializeError, isPlatformError, PlatformError } from '../../protocol/errors.js';
import { clientAddress } from '../../signaling/client-address.js';
import { KNOWN_CONTENT_TYPES } from '../../signaling/index.js';
import { errorBody, sendJson, statusOf } from './answers.js';
import { UploadLedger, UploadRefusal, type DemoUploadLimits, type UploadTicket } from './upload-limits.js';

/** The CDN folder of the anonymous uploads, inside the project's space. */
export const UPLOADS_PREFIX = 'uploads/';
/** Longest a refused upload's body is discarded so that its client reads the answer. */
export const LINGER_MS = 5_000;
/** A temporary file of an upload the CDN is writing (cdn.ts: `<file>.<12 hex>.tmp`): never swept. */
const TEMPORARY = /\.tmp$/;

/** Options of {@link DemoUploads.open}. */
export interface DemoUploadsOptions {
  readonly limits: DemoUploadLimits;
  /** The folder the CDN keeps the project's uploads in: `<dataDir>/cdn/<projectId>/uploads`. */
  readonly directory: string;
  /** Proxies in front that append to X-Forwarded-For (as the signaling server's `trustProxy`); 0: the socket's address counts. */
  readonly trustProxy: number;
  /** Where to stream to, read when an upload starts (the signaling server listens only once the demo does). */
  readonly cdn: () => { readonly url: string; readonly projectId: string; readonly projectToken: string };
  readonly log: (line: string) => void;
}

/** The upload route, its limits and the expiry sweep. */
export class DemoUploads {
  /** Opens the uploads: deletes what expired while the demo was stopped, then sweeps on a timer. */
  static async open(options: DemoUploadsOptions): Promise<DemoUploads> {
    const uploads = new DemoUploads(options);
    await uploads.sweep();
    const everyMs = Math.min(60_000, Math.max(250, Math.floor(options.limits.ttlMs / 4)));
    uploads.#timer = setInterval(() => void uploads.sweep(), everyMs);
    uploads.#timer.unref();
    return uploads;
  }

  readonly ledger: UploadLedger;
  readonly #options: DemoUploadsOptions;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | null = null;

  private constructor(options: DemoUploadsOptions) {
    this.#options = options;
    this.ledger = new UploadLedger(options.limits);
  }

  /** `PUT /demo-api/upload`: 201 `{ url: '/media/uploads/<id>.<ext>', expiresAt }`, or a coded refusal. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const extension = KNOWN_CONTENT_TYPES[contentType]?.[0];
    if (!extension || !/^(image|audio|video)\//.test(contentType)) {
      return this.#refuse(request, response, new PlatformError('UNSUPPORTED', `cannot upload ${contentType || 'a file without a content type'}: images, sounds and videos only`));
    }
    const header = request.headers['content-length'];
    const declared = header === undefined ? undefined : Number(header);
    let ticket: UploadTicket;
    try {
      ticket = this.ledger.admit(clientAddress(request, this.#options.trustProxy), declared);
    } catch (error) {
      return this.#refuse(request, response, error);
    }
    const path = `${UPLOADS_PREFIX}${randomBytes(9).toString('base64url')}.${extension}`;
    let stored = 0;
    try {
      stored = await this.#stream(request, ticket, path, contentType, declared);
      sendJson(response, 201, { url: `/media/${path}`, expiresAt: Date.now() + this.#options.limits.ttlMs });
    } catch (error) {
      this.#refuse(request, response, error);
    } finally {
      ticket.end(stored);
    }
  }

  /** True when `path` (of the project's CDN) is an upload that expired or is gone; deletes an expired one. */
  async expired(path: string): Promise<boolean> {
    if (!path.startsWith(UPLOADS_PREFIX)) return false;
    const file = join(this.#options.directory, path.slice(UPLOADS_PREFIX.length));
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return true;
    if (info.mtimeMs + this.#options.limits.ttlMs > Date.now()) return false;
    await unlink(file).catch(() => undefined);
    return true;
  }

  /**
   * Deletes the uploads past their time and counts the bytes of the others (the disk budget starts
   * over from what is really there). The files are the CDN's: unlinking one is safe beside a
   * reader, whose open file stays whole, and beside a writer, whose temporary is left alone.
   */
  sweep(): Promise<void> {
    this.#sweeping ??= (async () => {
      const { directory, limits } = this.#options;
      let names: string[];
      try {
        names = await readdir(directory);
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'ENOENT') this.#options.log(`platform-kit demo: cannot sweep ${directory}: ${(error as Error).message}`);
        names = [];
      }
      const now = Date.now();
      let kept = 0;
      for (const name of names) {
        if (TEMPORARY.test(name)) continue;
        const file = join(directory, name);
        const info = await stat(file).catch(() => undefined);
        if (!info?.isFile()) continue;
        if (info.mtimeMs + limits.ttlMs <= now) await unlink(file).catch(() => undefined);
        else kept += info.size;
      }
      this.ledger.setStoredBytes(kept);
      this.ledger.prune();
    })().finally(() => (this.#sweeping = null));
    return this.#sweeping;
  }

  /** Stops the sweep (files stay; the next start sweeps them). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeping;
  }

  /** Streams the body into the CDN at `path`; resolves the bytes stored, rejects with the refusal. */
  async #stream(request: IncomingMessage, ticket: UploadTicket, path: string, contentType: string, declared: number | undefined): Promise<number> {
    const cdn = this.#options.cdn();
    const outgoing = httpRequest(new URL(`/services/cdn/${path}`, cdn.url), {
      method: 'PUT',
      headers: {
        'x-platform-project-id': cdn.projectId,
        authorization: `Bearer ${cdn.projectToken}`,
        'content-type': contentType,
        // Declared sizes go on, so the CDN refuses a too-large one before it writes.
        ...(declared === undefined ? {} : { 'content-length': String(declared) }),
      },
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      outgoing.once('error', reject);
      outgoing.once('response', (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        // The CDN's answer is a line of JSON; anything longer is not read into memory.
        answer.on('data', (chunk: string) => (text = text.length < 64 * 1024 ? text + chunk : text));
        answer.once('close', () => resolve({ status: answer.statusCode ?? 500, text }));
      });
    });
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        try {
          ticket.add(chunk.length);
          callback(null, chunk);
        } catch (error) {
          callback(error as Error);
        }
      },
    });
    // A client that goes away, or that trickles its body past the timeout, gives its place up.
    const gone = (): void => {
      if (!request.complete) counter.destroy(new PlatformError('NOT_CONNECTED', 'the client went away during its upload'));
    };
    const timer = setTimeout(
      () => counter.destroy(new PlatformError('CALL_TIMEOUT', `the upload took over ${this.#options.limits.uploadTimeoutMs / 1000} s`)),
      this.#options.limits.uploadTimeoutMs,
    );
    request.once('close', gone);
    // pipe, not pipeline: a refusal must leave the request (and its socket) open for the answer.
    request.pipe(counter);
    const [sent, answer] = await Promise.allSettled([pipeline(counter, outgoing), answered]);
    clearTimeout(timer);
    request.off('close', gone);
    request.unpipe(counter);
    // Ours first: a refusal of the ledger or a client gone makes the CDN's answer (a cut upload) moot.
    if (sent.status === 'rejected' && isPlatformError(sent.reason)) throw sent.reason;
    if (answer.status === 'fulfilled') {
      let body: { size?: unknown; error?: unknown } | undefined;
      try {
        body = JSON.parse(answer.value.text) as { size?: unknown; error?: unknown };
      } catch {
        body = undefined;
      }
      if (answer.value.status === 201 && typeof body?.size === 'number') return body.size;
      throw deserializeError(body?.error ?? { code: 'INTERNAL', message: `the CDN answered ${answer.value.status}` });
    }
    throw new PlatformError('UNAVAILABLE', 'the CDN did not take the upload', { cause: sent.status === 'rejected' ? sent.reason : answer.reason });
  }

  /**
   * Answers a refusal (or a failure) and lets go of the rest of the body. The answer is written at
   * once, but ended only once the body is discarded: Node closes a connection the client asked
   * to close (or an HTTP/1.0 one) as soon as the answer ends, and closing with unread bytes
   * resets it, which loses the answer on the way. Discarding is bounded: `maxUploadBytes` and
   * {@link LINGER_MS}, after which the socket is destroyed.
   */
  #refuse(request: IncomingMessage, response: ServerResponse, error: unknown): void {
    if (request.socket.destroyed || response.headersSent) {
      request.socket.destroy();
      return;
    }
    const code = isPlatformError(error) ? error.code : 'INTERNAL';
    const status = error instanceof UploadRefusal ? error.status : statusOf(code);
    if (code === 'INTERNAL' || code === 'UNAVAILABLE')
      this.#options.log(`platform-kit demo: an upload failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    const text = JSON.stringify(errorBody(code, error instanceof Error ? error.message : String(error)));
    const maxBytes = this.#options.limits.maxUploadBytes;
    const declared = Number(request.headers['content-length']);
    // More left to come than we would ever discard: no use waiting; the connection closes after the answer.
    const hopeless = Number.isFinite(declared) && declared > maxBytes;
    response.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'content-length': Buffer.byteLength(text),
      ...(error instanceof UploadRefusal && error.retryAfterSeconds !== undefined ? { 'retry-after': String(error.retryAfterSeconds) } : {}),
      ...(hopeless ? { connection: 'close' } : {}),
    });
    if (request.complete || hopeless) {
      response.end(text);
      return;
    }
    response.write(text);
    let discarded = 0;
    const cut = (): void => {
      request.socket.destroy();
    };
    const timer = setTimeout(cut, LINGER_MS);
    timer.unref();
    request.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > maxBytes) cut();
    });
    request.once('end', () => response.end());
    request.once('close', () => clearTimeout(timer));
    request.resume();
  }
}
