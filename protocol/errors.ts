/**
 * The one error class of Platform Kit and its closed set of codes.
 *
 * Every failure that crosses a boundary (host ↔ guest, client ↔ server) is a
 * {@link PlatformError} with one of {@link ERROR_CODES}. It is sent as plain
 * data ({@link SerializedError}) and rebuilt on the other side, so `name`,
 * `message` and `code` survive the wire.
 */

/** Every error code Platform Kit produces. Closed: nothing else is ever sent. */
export const ERROR_CODES = [
  // link (host ↔ guest)
  'HANDSHAKE_TIMEOUT',
  'LOAD_TIMEOUT',
  'CALL_TIMEOUT',
  'LINK_RESET',
  'LINK_CLOSED',
  'NOT_EMBEDDED',
  'ORIGIN_REFUSED',
  'METHOD_NOT_ALLOWED',
  'INVALID_MESSAGE',
  'INVALID_ARGUMENT',
  'INVALID_PATH',
  'INVALID_VALUE',
  'VALUE_TOO_LARGE',
  'UNSUPPORTED',
  // customization files
  'INVALID_CONFIG',
  // dispatch and services
  'NOT_CONNECTED',
  'SHARD_FULL',
  'TOO_MANY_SHARDS',
  'INVALID_NAME',
  'INVALID_TOKEN',
  'TOKEN_EXPIRED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'QUEUE_FULL',
  // a shard's shared state would pass its size limit (the update is refused, the state kept)
  'STATE_TOO_LARGE',
  // a shared dependency of the server (Redis) is out of reach for now: retry later
  'UNAVAILABLE',
  'INTERNAL',
] as const;

/** A code from the closed set {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

const CODE_SET: ReadonlySet<string> = new Set(ERROR_CODES);

/** True when `value` is one of {@link ERROR_CODES}. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

/** The wire form of a {@link PlatformError}. */
export interface SerializedError {
  readonly name: 'PlatformError';
  readonly code: ErrorCode;
  readonly message: string;
}

/** Longest message kept when an error crosses a boundary: a peer cannot flood us with text. */
const MAX_MESSAGE_LENGTH = 1_000;
const PREFIX = 'platform-kit: ';

/**
 * The error every Platform Kit operation rejects or throws with.
 * `code` is machine readable and stable; `message` starts with `platform-kit:`.
 */
export class PlatformError extends Error {
  /** Stable, machine-readable reason. */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message.startsWith(PREFIX) ? message : PREFIX + message, options);
    this.name = 'PlatformError';
    this.code = code;
  }

  /** The plain-data form sent across a boundary. */
  toJSON(): SerializedError {
    return { name: 'PlatformError', code: this.code, message: this.message };
  }
}

/**
 * `message` without the `platform-kit: ` every PlatformError's message starts with: for a line
 * the user reads, or a message quoted inside another.
 */
export function withoutPrefix(message: string): string {
  return message.startsWith(PREFIX) ? message.slice(PREFIX.length) : message;
}

/** True for a {@link PlatformError}, also one made by another copy of this library. */
export function isPlatformError(value: unknown): value is PlatformError {
  return value instanceof PlatformError || (value instanceof Error && value.name === 'PlatformError' && isErrorCode((value as { code?: unknown }).code));
}

/** Turns anything thrown into its wire form; non-Platform errors become `INTERNAL` without their stack. */
export function serializeError(error: unknown): SerializedError {
  if (isPlatformError(error)) return { name: 'PlatformError', code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { name: 'PlatformError', code: 'INTERNAL', message: PREFIX + message.slice(0, MAX_MESSAGE_LENGTH) };
}

/** Rebuilds an error from the wire; anything malformed becomes `INVALID_MESSAGE`. */
export function deserializeError(value: unknown): PlatformError {
  if (typeof value === 'object' && value !== null) {
    const { code, message } = value as { code?: unknown; message?: unknown };
    if (isErrorCode(code) && typeof message === 'string') {
      return new PlatformError(code, message.slice(0, MAX_MESSAGE_LENGTH));
    }
  }
  return new PlatformError('INVALID_MESSAGE', 'the other side sent a malformed error');
}
