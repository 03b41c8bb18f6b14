/**
 * The production build's files (`demo/dist`), served as a static host would:
 * `/x/` is `/x/index.html`, hashed files under `/assets/` are cached for a
 * year (their name changes with their content), pages are revalidated on
 * every visit. Only files inside the folder are served; nothing is listed.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, resolve, sep } from 'node:path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.wav': 'audio/wav',
  '.map': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** Answers `path` from `root` (GET and HEAD), or 404/405 as JSON-less plain text. */
export async function serveStatic(root: string, request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed');
    return;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('bad path');
    return;
  }
  const file = await findFile(root, decoded);
  if (file === null) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(`no page ${path}`);
    return;
  }
  const immutable = decoded.startsWith('/assets/');
  const etag = `"${file.size.toString(16)}-${Math.floor(file.mtimeMs).toString(16)}"`;
  const headers: Record<string, string | number> = {
    'content-type': CONTENT_TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream',
    // Pages change with every build under the same name: ask again each time (a 304 when unchanged).
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    etag,
  };
  if (request.headers['if-none-match'] === etag) {
    response.writeHead(304, headers).end();
    return;
  }
  headers['content-length'] = file.size;
  response.writeHead(200, headers);
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  const stream = createReadStream(file.path);
  stream.once('error', () => response.destroy());
  stream.pipe(response);
}

/** The file `path` names inside `root` (a folder's index.html), or null. */
async function findFile(root: string, path: string): Promise<{ path: string; size: number; mtimeMs: number } | null> {
  const base = resolve(root);
  const candidate = resolve(join(base, path));
  // No way out of the folder (`..`, encoded or not), and no dot files (.vite's manifest, if any).
  const inside = relative(base, candidate);
  if (inside.startsWith('..') || inside.split(sep).some((part) => part.startsWith('.'))) return null;
  for (const file of path.endsWith('/') ? [join(candidate, 'index.html')] : [candidate, join(candidate, 'index.html')]) {
    const info = await stat(file).catch(() => null);
    if (info?.isFile()) return { path: file, size: info.size, mtimeMs: info.mtimeMs };
  }
  return null;
}
