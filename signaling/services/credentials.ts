/**
 * Who a services request speaks for: a project by its credentials (project
 * id and token), or by its owner's user token (editor flows). Every secret is
 * compared in constant time, and an unknown project fails like a wrong token.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PlatformError } from '../../protocol/errors.js';
import { bearerToken, headerValue, PROJECT_ID_HEADER, SAFE_NAME, sameSecret, USER_TOKEN_HEADER } from './http.js';
import type { TokenIssuer } from './identity.js';

/** Reserved: it would shadow the signed route in `/cdn/<projectId>/…`. */
const RESERVED_PROJECT_IDS = new Set(['signed']);

/** One project the services know: its token and, optionally, its owner's user id. */
export interface ServicesProject {
  readonly token: string;
  /** User id of the owner: their tokens carry role 'admin' and may store secrets and upload. */
  readonly ownerUserId?: string;
}

/** A project the services serve. */
export interface KnownProject {
  readonly id: string;
  readonly token: string;
  readonly ownerUserId: string | undefined;
}

/** The projects (read on every request) and the checks of a request's credentials against them. */
export class ServicesCredentials {
  constructor(
    readonly projects: { readonly [projectId: string]: string | ServicesProject },
    readonly tokens: TokenIssuer,
  ) {}

  /** The project of that id, when the services serve it. */
  project(projectId: string | undefined): KnownProject | undefined {
    if (projectId === undefined || !SAFE_NAME.test(projectId) || RESERVED_PROJECT_IDS.has(projectId)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(this.projects, projectId)) return undefined;
    const entry = this.projects[projectId];
    if (entry === undefined) return undefined;
    return typeof entry === 'string' ? { id: projectId, token: entry, ownerUserId: undefined } : { id: projectId, token: entry.token, ownerUserId: entry.ownerUserId };
  }

  /** The project named by the request's project id header, when the services serve it. */
  projectOf(req: IncomingMessage): KnownProject | undefined {
    return this.project(headerValue(req, PROJECT_ID_HEADER));
  }

  /** The project of valid project credentials; UNAUTHORIZED otherwise. */
  projectCredentials(req: IncomingMessage): string {
    const found = this.projectOf(req);
    const token = bearerToken(req);
    // Compare even when the project is unknown, so both failures take the same time.
    const ok = sameSecret(token ?? '', found?.token ?? randomBytes(16).toString('hex'));
    if (!found || token === undefined || !ok)
      throw new PlatformError('UNAUTHORIZED', `valid project credentials are required (${PROJECT_ID_HEADER} and authorization: Bearer <projectToken>)`);
    return found.id;
  }

  /** Project credentials, or the owner's user token for the project (editor flows). */
  async projectOrOwner(req: IncomingMessage): Promise<string> {
    const userToken = headerValue(req, USER_TOKEN_HEADER);
    if (userToken === undefined) return this.projectCredentials(req);
    const found = this.projectOf(req);
    if (!found) throw new PlatformError('UNAUTHORIZED', 'unknown project');
    const user = await this.tokens.verify(found.id, userToken);
    if (found.ownerUserId === undefined || user.id !== found.ownerUserId) {
      throw new PlatformError('FORBIDDEN', "only the project's owner may do this");
    }
    return found.id;
  }
}
