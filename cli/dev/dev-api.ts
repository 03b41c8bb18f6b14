/**
 * The workbench's small API (under `/__platform/`), and what it pushes to the page.
 *
 * On the workbench's origin:
 *   GET  /__platform/state       the project, the template's URL, the neighbour's, the remixes, the problems
 *   GET  /__platform/events      server-sent events: `problems`, `remix`, `report`, `presence`, `bundle`
 *   GET  /__platform/bundle      the built template's JavaScript, gzipped, against the budget (bundle-size.ts)
 *   POST /__platform/remixes     Finish: publish `{ values }` locally (this process only)
 *   POST /__platform/identity    a user token for `{ player }` (each player its own identity)
 * On the template's origin:
 *   GET  /__platform/probe.js    the dev probe (probe-script.ts)
 *   GET  /__platform/neighbour   the feed's neighbour, a template of the kit's own
 *   POST /__platform/report      what the probe saw, passed on as `report`
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ViteDevServer } from 'vite';
import { assertPlainData, DEFAULT_MAX_JSON_DEPTH, jsonDepthWithin } from '../../protocol/data.js';
import { requestUserToken, type ShardStore } from '../../signaling/index.js';
import type { CustomizationBuildResult } from '../build-customization.js';
import { formatProblem } from '../customization-problems.js';
import { BundleSize } from './bundle-size.js';
import { NEIGHBOUR_HTML, PROBE_SCRIPT } from './probe-script.js';
import { readBody } from '../../signaling/services/http.js';

/** A remix published from the workbench. */
export interface DevRemix {
  readonly id: string;
  readonly title: string;
  readonly values: { readonly [scope: string]: { readonly [key: string]: unknown } };
}

/** Largest body the API reads: a remix's values, a probe's report. */
const MAX_BODY_BYTES = 512 * 1024;
/** How often the shards' presence is read for the page (the store has no change feed of its own). */
const PRESENCE_POLL_MS = 250;

/** What the API serves and where it asks. */
export interface DevApiOptions {
  readonly root: string;
  readonly projectId: string;
  readonly feedProjectId: string;
  readonly templateOrigin: string;
  /** The signaling server's own URL (identity tokens). */
  readonly servicesUrl: string;
  readonly adminKey: string;
  readonly store: ShardStore;
}

export class DevApi {
  readonly #options: DevApiOptions;
  readonly #clients = new Set<ServerResponse>();
  readonly #remixes: DevRemix[] = [];
  #problems: string[] = [];
  #presence = '';
  readonly #poll: ReturnType<typeof setInterval>;
  readonly #bundle: BundleSize;

  constructor(options: DevApiOptions) {
    this.#options = options;
    this.#bundle = new BundleSize(options.root, (report) => this.#push('bundle', report));
    this.#poll = setInterval(() => void this.#readPresence(), PRESENCE_POLL_MS);
    this.#poll.unref();
  }

  /** The plugin built the customization: its problems, pushed at once (the overlay's source). */
  customizationBuilt(result: CustomizationBuildResult): void {
    const problems = result.problems.map(formatProblem);
    if (problems.join('\n') === this.#problems.join('\n')) return;
    this.#problems = problems;
    this.#push('problems', { problems });
  }

  /** A file of the template changed: the bundle's size is stale (rebuilt soon while a page listens). */
  templateChanged(): void {
    this.#bundle.changed(this.#clients.size > 0);
  }

  workbenchRoute(request: IncomingMessage, response: ServerResponse, url: URL): void {
    const route = `${request.method ?? 'GET'} ${url.pathname}`;
    if (route === 'GET /__platform/bundle') {
      void this.#bundle.report().then((report) => sendJson(response, 200, report));
      return;
    }
    if (route === 'GET /__platform/state') {
      return sendJson(response, 200, {
        projectId: this.#options.projectId,
        feedProjectId: this.#options.feedProjectId,
        templateUrl: `${this.#options.templateOrigin}/`,
        neighbourUrl: `${this.#options.templateOrigin}/__platform/neighbour`,
        remixes: this.#remixes,
        problems: this.#problems,
      });
    }
    if (route === 'GET /__platform/events') {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      response.write(': connected\n\n');
      this.#clients.add(response);
      request.once('close', () => this.#clients.delete(response));
      return;
    }
    if (route === 'POST /__platform/remixes') {
      readJson(request)
        .then((body) => {
          const values = body['values'];
          if (typeof values !== 'object' || values === null || Array.isArray(values))
            return sendJson(response, 400, { error: { code: 'INVALID_ARGUMENT', message: 'platform-kit dev: values must be { scope: { key: value } }' } });
          assertPlainData(values);
          const remix: DevRemix = { id: `remix-${this.#remixes.length + 1}`, title: `Remix ${this.#remixes.length + 1}`, values: values as DevRemix['values'] };
          this.#remixes.push(remix);
          this.#push('remix', remix);
          sendJson(response, 201, remix);
        })
        .catch((error: unknown) => sendJson(response, 400, { error: { code: 'INVALID_ARGUMENT', message: `platform-kit dev: ${(error as Error).message}` } }));
      return;
    }
    if (route === 'POST /__platform/identity') {
      readJson(request)
        .then(async (body) => {
          const player = typeof body['player'] === 'number' && Number.isInteger(body['player']) && body['player'] >= 1 && body['player'] <= 4 ? body['player'] : 0;
          const userId = player === 0 ? 'dev-author' : `dev-player-${player}`;
          const token = await requestUserToken({
            adminKey: this.#options.adminKey,
            projectId: this.#options.projectId,
            userId,
            attributes: { username: player === 0 ? 'Author' : `Player ${player}` },
            url: this.#options.servicesUrl,
          });
          sendJson(response, 200, { userToken: token.userToken, presumedRole: token.presumedRole, presumedAttributes: token.presumedAttributes });
        })
        .catch((error: unknown) => sendJson(response, 500, { error: { code: 'INTERNAL', message: `platform-kit dev: ${(error as Error).message}` } }));
      return;
    }
    sendJson(response, 404, { error: { code: 'NOT_FOUND', message: `platform-kit dev: no route ${route}` } });
  }

  templateRoute(request: IncomingMessage, response: ServerResponse, url: URL, vite: ViteDevServer): void {
    const route = `${request.method ?? 'GET'} ${url.pathname}`;
    if (route === 'GET /__platform/probe.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }).end(PROBE_SCRIPT);
    } else if (route === 'GET /__platform/neighbour') {
      // Through the template's Vite, so its `platform-kit/guest` import resolves as the template's does.
      vite.transformIndexHtml('/__platform/neighbour', NEIGHBOUR_HTML).then(
        (html) => void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html),
        (error: unknown) => void response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
      );
    } else if (route === 'POST /__platform/report') {
      readJson(request)
        .then((body) => {
          // A frame's report is foreign JSON: a field that is not text is shown as its JSON, never as [object Object].
          const textOf = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
          this.#push('report', { frame: textOf(body['frame']).slice(0, 40), kind: textOf(body['kind']).slice(0, 40), detail: textOf(body['detail']).slice(0, 400) });
          response.writeHead(204).end();
        })
        .catch(() => void response.writeHead(400).end());
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`platform-kit dev: no route ${route}`);
    }
  }

  close(): void {
    clearInterval(this.#poll);
    this.#bundle.close();
    for (const client of this.#clients) client.end();
    this.#clients.clear();
  }

  /** Members per shard of the development project; pushed when it changed. */
  async #readPresence(): Promise<void> {
    if (this.#clients.size === 0) return;
    const { store } = this.#options;
    const shards: { project: string; name: string; members: string[] }[] = [];
    try {
      for (const project of [this.#options.projectId, this.#options.feedProjectId]) {
        for (const shard of await store.shards(project)) {
          const members = await store.members(project, shard.shardName);
          // Online ones only: a closed page's members stay in the store for their reconnection grace,
          // and a workbench reloaded would otherwise see its last feed's frames as its own. And
          // members here only: a preloaded frame may join early, away (ConnectedClient.state).
          shards.push({ project, name: shard.shardName, members: members.filter((member) => member.online && member.state !== 'away').map((member) => member.clientId) });
        }
      }
    } catch {
      return; // The store is closing with the server: the next poll will not come.
    }
    const text = JSON.stringify(shards);
    if (text === this.#presence) return;
    this.#presence = text;
    this.#push('presence', { shards });
  }

  #push(event: string, data: unknown): void {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const client of this.#clients) client.write(frame);
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(text);
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  // The server's body reader (a declared length over the limit is refused before a byte is read).
  const text = (await readBody(request, MAX_BODY_BYTES)).toString('utf8');
  if (!jsonDepthWithin(text, DEFAULT_MAX_JSON_DEPTH)) throw new Error('the body nests too deep');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('the body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the body must be a JSON object');
  return parsed as Record<string, unknown>;
}
