/**
 * A tool call's arguments from the JSON text a provider streamed for them. Anything but a JSON
 * object becomes an empty object: the tool registry then answers with the missing field, which
 * lets the model retry instead of failing the whole run.
 */
export function parseToolArguments(raw: string): Record<string, unknown> {
  if (!raw) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
