/**
 * What is wrong in a customization file, as the builder reports it: the
 * problem type, its list without repeats, and its one-line form.
 */
import { withoutPrefix, type ErrorCode } from '../protocol/errors.js';

/** One thing wrong in a customization file. */
export interface CustomizationProblem {
  /** The file, relative to the template root, with `/` separators (e.g. `.platform/customization/card.json`). */
  readonly file: string;
  /**
   * JSON-pointer-like path inside the file, e.g. `/@@editor/0/fields/2/typeOptions/min`;
   * empty when the problem is the whole file (a syntax error, an unreadable file).
   */
  readonly path: string;
  /** What is wrong, in words. */
  readonly reason: string;
  /** 1-based line, for syntax errors. */
  readonly line?: number;
  /** 1-based column, for syntax errors. */
  readonly column?: number;
  /** The error code, where one applies: `INVALID_VALUE` for a value that does not fit its type (kept, or replaced when unsafe). */
  readonly code?: ErrorCode;
}

/** Formats a problem the way compilers do, `file:path: reason`, for a terminal or a log. */
export function formatProblem(problem: CustomizationProblem): string {
  return problem.path === '' ? `${problem.file}: ${problem.reason}` : `${problem.file}:${problem.path}: ${problem.reason}`;
}

/** The problems of one build, each reported once. */
export class ProblemList {
  readonly list: CustomizationProblem[] = [];
  private readonly seen = new Set<string>();

  add(problem: CustomizationProblem): void {
    const id = `${problem.file}\0${problem.path}\0${problem.reason}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.list.push(problem);
  }
}

/** Reports one problem at a JSON-pointer-like path of the file being checked. */
export type Report = (path: string, reason: string) => void;

/** The message of an error without the library's prefix. */
export function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return withoutPrefix(message);
}
