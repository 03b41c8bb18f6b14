/**
 * The served projects (SignalingServerOptions.projects), looked up by an id
 * that comes from outside: only the object's own keys, never a property of
 * Object.prototype (`toString`, `__proto__`). Read on every lookup, so a
 * project added to the object is served at once.
 */
import type { SignalingProject } from './server-options.js';

/** The projects a server serves: a token, or the project with its rules. */
export type Projects = { readonly [projectId: string]: string | SignalingProject };

/** A served project, or undefined (never a property of Object.prototype). */
export function projectOf(projects: Projects, projectId: string): SignalingProject | undefined {
  if (!Object.prototype.hasOwnProperty.call(projects, projectId)) return undefined;
  const entry = projects[projectId];
  return typeof entry === 'string' ? { token: entry } : entry;
}

/** The role of a user's tokens in a project: 'admin' for its owner, 'user' for anyone else. */
export function roleOf(projects: Projects, projectId: string, userId: string): 'admin' | 'user' {
  const entry = Object.prototype.hasOwnProperty.call(projects, projectId) ? projects[projectId] : undefined;
  return typeof entry === 'object' && entry.ownerUserId !== undefined && entry.ownerUserId === userId ? 'admin' : 'user';
}
