/**
 * The limits of the demo's anonymous uploads (`PUT /demo-api/upload`) and the ledger that keeps
 * them: a quota per client address (uploads and bytes per window), a cap on uploads at once (per
 * address and overall) and on the bytes the uploads hold on disk, all checked before a byte of a
 * body is read and again for every chunk that arrives.
 *
 * Why all of them: anyone who can open the demo can upload, and the demo is what people deploy
 * first. The size cap alone bounded one body, not a crowd of them (issue 23's probe held 1.9 GB
 * with 60 uploads at once) nor a disk filled one upload at a time.
 */
import { PlatformError } from '../../protocol/errors.js';

/** Limits of the demo's uploads. Every field is a whole number; sizes in bytes, times in ms. */
export interface DemoUploadLimits {
  /** Largest upload: the demo's signaling server gets the same cap, so the CDN refuses what the demo would. */
  readonly maxUploadBytes: number;
  /** Uploads one client address may start per window (refused ones not counted, failed ones counted). */
  readonly maxUploadsPerAddress: number;
  /** Bytes one client address may send per window (what was read, stored or not). */
  readonly maxBytesPerAddress: number;
  /** The quota's window, sliding. */
  readonly windowMs: number;
  /** Uploads of one client address at once. */
  readonly maxConcurrentPerAddress: number;
  /** Uploads at once, every address together. */
  readonly maxConcurrent: number;
  /** Bytes of uploads on disk at once (not expired yet), every address together. */
  readonly maxStoredBytes: number;
  /** How long an upload is kept: after it the file is deleted (at the next sweep, or at the next start). */
  readonly ttlMs: number;
  /** Longest an upload may take: a client that trickles its body gives its place up after it. */
  readonly uploadTimeoutMs: number;
}

const MIB = 1024 * 1024;

/** The defaults: a demo's few images and sounds pass; a crowd, a loop or a full disk do not. */
export const DEFAULT_UPLOAD_LIMITS: DemoUploadLimits = {
  maxUploadBytes: 8 * MIB,
  maxUploadsPerAddress: 20,
  maxBytesPerAddress: 64 * MIB,
  windowMs: 15 * 60_000,
  maxConcurrentPerAddress: 2,
  maxConcurrent: 8,
  maxStoredBytes: 1024 * MIB,
  ttlMs: 24 * 60 * 60_000,
  uploadTimeoutMs: 120_000,
};

/** Environment variables that set a limit, and the unit each is written in. */
const ENV_NAMES: ReadonlyArray<readonly [keyof DemoUploadLimits, string, number]> = [
  ['ttlMs', 'DEMO_UPLOAD_TTL_SECONDS', 1000],
  ['maxUploadsPerAddress', 'DEMO_UPLOADS_PER_ADDRESS', 1],
  ['maxBytesPerAddress', 'DEMO_UPLOAD_MB_PER_ADDRESS', MIB],
  ['windowMs', 'DEMO_UPLOAD_WINDOW_SECONDS', 1000],
  ['maxStoredBytes', 'DEMO_UPLOAD_STORED_MB', MIB],
];

/** The limits: `options` over the environment (`DEMO_UPLOAD_TTL_SECONDS`…) over the defaults; INVALID_CONFIG for a value that is not a positive number. */
export function uploadLimits(options: Partial<DemoUploadLimits> = {}, env: Readonly<Record<string, string | undefined>> = process.env): DemoUploadLimits {
  const limits: Record<string, number> = { ...DEFAULT_UPLOAD_LIMITS };
  for (const [key, name, unit] of ENV_NAMES) {
    const text = env[name];
    if (text === undefined || text === '') continue;
    const value = Number(text);
    if (!(Number.isFinite(value) && value > 0)) throw new PlatformError('INVALID_CONFIG', `${name} must be a positive number, not "${text}"`);
    limits[key] = Math.round(value * unit);
  }
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) limits[key] = value;
  }
  for (const [key, value] of Object.entries(limits)) {
    if (!(Number.isInteger(value) && value > 0)) throw new PlatformError('INVALID_CONFIG', `the upload limit ${key} must be a positive whole number`);
  }
  return limits as unknown as DemoUploadLimits;
}

/** A refusal: its code, its HTTP status, and when to try again (seconds) if waiting helps. */
export class UploadRefusal extends PlatformError {
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  constructor(code: 'RATE_LIMITED' | 'PAYLOAD_TOO_LARGE', status: number, message: string, retryAfterSeconds?: number) {
    super(code, message);
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** One upload admitted by the ledger. */
export interface UploadTicket {
  /** Counts `bytes` more of the body; throws an {@link UploadRefusal} once a limit is passed. */
  add(bytes: number): void;
  /** The upload ended (stored or not); `storedBytes` is what it left on disk. Idempotent. */
  end(storedBytes: number): void;
}

interface Started {
  readonly at: number;
  bytes: number;
}

interface AddressState {
  /** Uploads started within the window, oldest first. */
  readonly started: Started[];
  active: number;
}

/** The quota, the caps at once and the disk budget, in memory (one process; the quota starts over at a restart). */
export class UploadLedger {
  readonly limits: DemoUploadLimits;
  readonly #now: () => number;
  readonly #addresses = new Map<string, AddressState>();
  #active = 0;
  /** Bytes of uploads being received now. */
  #receiving = 0;
  /** Bytes on disk as of the last sweep, plus uploads stored since. */
  #stored = 0;

  constructor(limits: DemoUploadLimits, now: () => number = Date.now) {
    this.limits = limits;
    this.#now = now;
  }

  /** What the sweep found on disk: the stored bytes start over from it. */
  setStoredBytes(bytes: number): void {
    this.#stored = bytes;
  }

  /**
   * Admits an upload of `address` that declares `declaredBytes` (undefined: chunked), or throws an
   * {@link UploadRefusal}: it is decided before a byte of the body is read.
   */
  admit(address: string, declaredBytes: number | undefined): UploadTicket {
    const { limits } = this;
    if (declaredBytes !== undefined && declaredBytes > limits.maxUploadBytes) {
      throw new UploadRefusal('PAYLOAD_TOO_LARGE', 413, `the upload is ${declaredBytes} bytes, over the limit of ${limits.maxUploadBytes}`);
    }
    const state = this.#state(address);
    const windowBytes = state.started.reduce((sum, entry) => sum + entry.bytes, 0);
    const retry = this.#retryAfterSeconds(state);
    if (state.started.length >= limits.maxUploadsPerAddress) {
      throw new UploadRefusal('RATE_LIMITED', 429, `this address started ${limits.maxUploadsPerAddress} uploads within ${limits.windowMs / 1000} s, the most it may`, retry);
    }
    if (windowBytes + (declaredBytes ?? 1) > limits.maxBytesPerAddress) {
      throw new UploadRefusal(
        'RATE_LIMITED',
        429,
        `this address sent ${windowBytes} bytes within ${limits.windowMs / 1000} s; ${limits.maxBytesPerAddress} is the most it may`,
        retry,
      );
    }
    if (state.active >= limits.maxConcurrentPerAddress) {
      throw new UploadRefusal('RATE_LIMITED', 429, `this address has ${state.active} uploads under way, the most it may at once`, 1);
    }
    if (this.#active >= limits.maxConcurrent) {
      throw new UploadRefusal('RATE_LIMITED', 429, `the demo receives ${this.#active} uploads at once, the most it takes`, 1);
    }
    if (this.#stored + this.#receiving + (declaredBytes ?? 1) > limits.maxStoredBytes) {
      throw new UploadRefusal('RATE_LIMITED', 429, `the demo's uploads fill the ${limits.maxStoredBytes} bytes it keeps; uploads expire after ${limits.ttlMs / 1000} s`, 60);
    }
    const entry: Started = { at: this.#now(), bytes: 0 };
    state.started.push(entry);
    state.active += 1;
    this.#active += 1;
    let received = 0;
    let ended = false;
    return {
      add: (bytes) => {
        if (ended) return;
        received += bytes;
        entry.bytes += bytes;
        this.#receiving += bytes;
        if (received > limits.maxUploadBytes) throw new UploadRefusal('PAYLOAD_TOO_LARGE', 413, `the upload is over the limit of ${limits.maxUploadBytes} bytes`);
        // Summed afresh: the address's other uploads under way count their bytes too (at most maxUploadsPerAddress entries).
        if (state.started.reduce((sum, started) => sum + started.bytes, 0) > limits.maxBytesPerAddress) {
          throw new UploadRefusal(
            'RATE_LIMITED',
            429,
            `this address sent over ${limits.maxBytesPerAddress} bytes within ${limits.windowMs / 1000} s`,
            this.#retryAfterSeconds(state),
          );
        }
        if (this.#stored + this.#receiving > limits.maxStoredBytes) {
          throw new UploadRefusal('RATE_LIMITED', 429, `the demo's uploads fill the ${limits.maxStoredBytes} bytes it keeps`, 60);
        }
      },
      end: (storedBytes) => {
        if (ended) return;
        ended = true;
        this.#receiving -= received;
        this.#stored += storedBytes;
        state.active -= 1;
        this.#active -= 1;
      },
    };
  }

  /** Forgets what left the window, and addresses with nothing in it (the map holds only recent ones). */
  prune(): void {
    for (const [address, state] of this.#addresses) {
      this.#expire(state);
      if (state.started.length === 0 && state.active === 0) this.#addresses.delete(address);
    }
  }

  #state(address: string): AddressState {
    let state = this.#addresses.get(address);
    if (!state) {
      state = { started: [], active: 0 };
      this.#addresses.set(address, state);
    }
    this.#expire(state);
    return state;
  }

  #expire(state: AddressState): void {
    const since = this.#now() - this.limits.windowMs;
    while (state.started.length > 0 && state.started[0]!.at <= since) state.started.shift();
  }

  #retryAfterSeconds(state: AddressState): number {
    const oldest = state.started[0];
    return oldest === undefined ? 1 : Math.max(1, Math.ceil((oldest.at + this.limits.windowMs - this.#now()) / 1000));
  }
}
