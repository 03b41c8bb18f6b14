/**
 * A strict JSON reader for customization files.
 *
 * Why not `JSON.parse`: its error messages differ between Node versions and
 * often carry no position, it silently keeps the last of two equal keys, and
 * it happily creates an own `__proto__` property. Template authors edit these
 * files by hand while a watcher rebuilds on every save, so a syntax error
 * must say where it is (line and column), and a duplicate or forbidden key
 * must be reported at its exact path instead of being passed on.
 */
import { FORBIDDEN_KEYS, type PlainData } from '../protocol/data.js';

/** Deepest nesting a customization file may use; deeper input is refused, never a stack overflow. */
export const MAX_JSON_DEPTH = 64;

/** Something wrong at one key of otherwise well-formed JSON (a duplicate or forbidden key). */
export interface JsonKeyIssue {
  /** JSON-pointer-like path of the key, e.g. `/card/__proto__`. */
  readonly path: string;
  readonly reason: string;
}

/** What {@link parseJsonSource} returns. */
export type JsonParseResult =
  | {
      readonly ok: true;
      /** The value, without forbidden keys (they are reported in `issues`, never assigned). */
      readonly value: PlainData;
      readonly issues: readonly JsonKeyIssue[];
    }
  | {
      readonly ok: false;
      /** 1-based line of the first syntax error. */
      readonly line: number;
      /** 1-based column (UTF-16 units) of the first syntax error. */
      readonly column: number;
      readonly reason: string;
    };

/** Appends one segment to a JSON-pointer-like path, escaping `~` and `/` as RFC 6901 does. */
export function pointerJoin(base: string, segment: string | number): string {
  return `${base}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Parses JSON text (a leading byte-order mark is allowed) and reports where it is malformed. */
export function parseJsonSource(text: string): JsonParseResult {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const reader = new Reader(source);
  try {
    reader.skipWhitespace();
    const value = reader.readValue('', 0);
    reader.skipWhitespace();
    if (reader.pos < source.length) reader.fail('unexpected content after the JSON value');
    return { ok: true, value, issues: reader.issues };
  } catch (error) {
    if (!(error instanceof SyntaxFailure)) throw error;
    const { line, column } = lineAndColumn(source, error.pos);
    return { ok: false, line, column, reason: error.reason };
  }
}

/** Where and why the source is not JSON; caught by the parser's caller (an Error so that nothing else is ever thrown). */
class SyntaxFailure extends Error {
  constructor(
    readonly pos: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

class Reader {
  pos = 0;
  readonly issues: JsonKeyIssue[] = [];

  constructor(private readonly text: string) {}

  fail(reason: string, pos = this.pos): never {
    throw new SyntaxFailure(pos, reason);
  }

  skipWhitespace(): void {
    const { text } = this;
    while (this.pos < text.length) {
      const char = text[this.pos];
      if (char !== ' ' && char !== '\t' && char !== '\n' && char !== '\r') return;
      this.pos++;
    }
  }

  private found(): string {
    const char = this.text[this.pos];
    return char === undefined ? 'the end of the file' : JSON.stringify(char);
  }

  private expect(char: string, what: string): void {
    if (this.text[this.pos] !== char) this.fail(`expected ${what}, found ${this.found()}`);
    this.pos++;
  }

  readValue(path: string, depth: number): PlainData {
    if (depth > MAX_JSON_DEPTH) this.fail(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    const char = this.text[this.pos];
    // One character (undefined past the end): the default reads every other as a number or fails.
    // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check
    switch (char) {
      case '{':
        return this.readObject(path, depth);
      case '[':
        return this.readArray(path, depth);
      case '"':
        return this.readString();
      case 't':
        return this.readLiteral('true', true);
      case 'f':
        return this.readLiteral('false', false);
      case 'n':
        return this.readLiteral('null', null);
      default:
        if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return this.readNumber();
        return this.fail(`expected a value, found ${this.found()}`);
    }
  }

  private readLiteral<T extends PlainData>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail(`expected a value, found ${this.found()}`);
    this.pos += word.length;
    return value;
  }

  private readNumber(): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (!match) return this.fail(`invalid number`);
    const value = Number(match[0]);
    // PlainData has no Infinity: JSON.parse would turn 1e400 into one silently.
    if (!Number.isFinite(value)) this.fail(`number ${match[0]} is too large`);
    this.pos += match[0].length;
    return value;
  }

  private readString(): string {
    const { text } = this;
    const start = this.pos;
    this.pos++; // opening quote
    let result = '';
    let chunkStart = this.pos;
    while (true) {
      const code = text.charCodeAt(this.pos);
      if (Number.isNaN(code)) this.fail('unterminated string', start);
      if (code === 0x22) break; // closing quote
      if (code < 0x20) this.fail('a control character (such as a line break) must be escaped inside a string');
      if (code === 0x5c) {
        result += text.slice(chunkStart, this.pos);
        const escape = text[this.pos + 1];
        if (escape === 'u') {
          const hex = text.slice(this.pos + 2, this.pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\u escape: expected 4 hex digits');
          result += String.fromCharCode(parseInt(hex, 16));
          this.pos += 6;
        } else {
          const replacement = escape === undefined ? undefined : ESCAPES[escape];
          if (replacement === undefined) this.fail(`invalid escape \\${escape ?? ''}`);
          result += replacement;
          this.pos += 2;
        }
        chunkStart = this.pos;
        continue;
      }
      this.pos++;
    }
    result += text.slice(chunkStart, this.pos);
    this.pos++; // closing quote
    return result;
  }

  private readArray(path: string, depth: number): PlainData[] {
    this.pos++; // [
    const items: PlainData[] = [];
    this.skipWhitespace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return items;
    }
    while (true) {
      this.skipWhitespace();
      items.push(this.readValue(pointerJoin(path, items.length), depth + 1));
      this.skipWhitespace();
      if (this.text[this.pos] === ',') {
        this.pos++;
        this.skipWhitespace();
        if (this.text[this.pos] === ']') this.fail('trailing comma before "]"');
        continue;
      }
      this.expect(']', '"," or "]" after an array item');
      return items;
    }
  }

  private readObject(path: string, depth: number): { [key: string]: PlainData } {
    this.pos++; // {
    const object: { [key: string]: PlainData } = {};
    const seen = new Set<string>();
    this.skipWhitespace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return object;
    }
    while (true) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail(`expected a property name in double quotes, found ${this.found()}`);
      const key = this.readString();
      this.skipWhitespace();
      this.expect(':', '":" after a property name');
      this.skipWhitespace();
      const keyPath = pointerJoin(path, key);
      const value = this.readValue(keyPath, depth + 1);
      if (FORBIDDEN_KEYS.has(key)) {
        // Never assigned: `object.__proto__ = value` would replace the prototype.
        this.issues.push({ path: keyPath, reason: `the key "${key}" is forbidden (it could reach an object's prototype)` });
      } else if (seen.has(key)) {
        this.issues.push({ path: keyPath, reason: `duplicate key "${key}"` });
      } else {
        seen.add(key);
        object[key] = value;
      }
      this.skipWhitespace();
      if (this.text[this.pos] === ',') {
        this.pos++;
        this.skipWhitespace();
        if (this.text[this.pos] === '}') this.fail('trailing comma before "}"');
        continue;
      }
      this.expect('}', '"," or "}" after a property value');
      return object;
    }
  }
}

function lineAndColumn(text: string, pos: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < pos && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: pos - lineStart + 1 };
}
