/**
 * `platform-kit/signaling`: the Node side of Platform Kit (signaling server,
 * PlatformBackend, Keystore, VccMiddleware). Only the shared error type is
 * here so far; the server arrives with the Dispatch issue.
 */
export { PlatformError, isPlatformError, ERROR_CODES, type ErrorCode } from '../protocol/errors.js';
