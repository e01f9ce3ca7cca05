/**
 * The NUL character (U+0000). PostgreSQL's text and jsonb cannot hold it, so one rule holds on
 * both backends: the API and the webhook refuse it in every string they accept (400
 * AGENTD_VALIDATION naming the field), and text the service stores that no client sent (a model's
 * answer, a tool's result, an upstream error) has it replaced by U+FFFD.
 */
export const NUL_REFUSED = 'must not contain the NUL character (U+0000)';

/**
 * The name of the first string or key holding NUL in a parsed JSON value (`a.b[2]`), or null.
 * Walked with a stack, not recursion: a body nested thousands deep is checked to the bottom.
 */
export function nulField(value: unknown, root = 'body'): string | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return printable(path || root);
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], `${path}[${i}]`]);
    } else if (item !== null && typeof item === 'object') {
      const keys = Object.keys(item);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const name = path === '' ? key : `${path}.${key}`;
        if (key.includes('\u0000')) return printable(name);
        stack.push([(item as Record<string, unknown>)[key], name]);
      }
    }
  }
  return null;
}

/** A field name fit for an error message: its NULs shown as \0, at most 64 characters. */
function printable(name: string): string {
  return name.replaceAll('\u0000', '\\0').slice(0, 64);
}

/** `text` with every NUL replaced by U+FFFD (the same string when it holds none). */
export function withoutNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}
