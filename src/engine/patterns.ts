/** Small shared helpers for JSON values and Elasticsearch's `*` wildcard patterns. */

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A compiled wildcard pattern. */
export interface Glob {
  test(text: string): boolean;
}

/** A `*` wildcard pattern (index names, `_source` and `filter_path` paths, task actions); every other character is literal. */
export function globPattern(pattern: string): Glob {
  return starPattern(pattern.split('*').map(escapeRegExp));
}

/**
 * Text matched against `parts` joined by `*` (any run of characters), where each part is a
 * regular expression without quantifiers (literals, `.` for one character): the first part must
 * start the text, the last must end it, the others come in order between. Each middle part is taken
 * at its leftmost place, which leaves the most room for the rest, so a test costs at most
 * O(text × pattern). One regular expression with `.*` for each star would backtrack
 * exponentially: `*a*a*a*a*a*a*a*b` against forty `a`s held the event loop for 6 s.
 */
export function starPattern(parts: readonly string[], flags = 's'): Glob {
  if (parts.length === 1) return new RegExp(`^(?:${parts[0]})$`, flags);
  const first = new RegExp(`^(?:${parts[0]})`, flags);
  const middle = parts.slice(1, -1).filter((part) => part !== '').map((part) => new RegExp(part, `${flags}g`));
  const last = new RegExp(`(?:${parts[parts.length - 1]})$`, `${flags}g`);
  return {
    test(text) {
      const head = first.exec(text);
      if (!head) return false;
      let at = head[0].length;
      for (const part of middle) {
        part.lastIndex = at;
        const found = part.exec(text);
        if (!found) return false;
        at = found.index + found[0].length;
      }
      last.lastIndex = at;
      return last.test(text);
    },
  };
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
