/**
 * Minimal checking of tool arguments against the tool's declared JSON Schema: required fields,
 * primitive types, enums and `additionalProperties: false`, one level deep. Models do send wrong
 * shapes; a precise message fed back as an error result lets them correct the call, and tools can
 * rely on the declared types of what they receive.
 */
type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

function typeOf(value: unknown): JsonType | 'undefined' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = typeof value;
  if (t === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (t === 'string' || t === 'boolean' || t === 'object') return t;
  return 'undefined';
}

function matchesType(value: unknown, declared: unknown): boolean {
  const types = Array.isArray(declared) ? declared : [declared];
  const actual = typeOf(value);
  return types.some((t) => t === actual || (t === 'number' && actual === 'integer'));
}

/** Returns a message naming the first problem, or null when the arguments fit the schema. */
export function validateArgs(args: unknown, schema: Record<string, unknown>): string | null {
  if (typeOf(args) !== 'object') return `arguments must be a JSON object, got ${typeOf(args)}`;
  const obj = args as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];

  for (const name of required) {
    if (obj[name] === undefined) return `missing required argument '${name}'`;
  }
  for (const [name, value] of Object.entries(obj)) {
    const prop = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (!prop) {
      if (schema.additionalProperties === false) return `unexpected argument '${name}'`;
      continue;
    }
    if (prop.type !== undefined && !matchesType(value, prop.type)) {
      const wanted = Array.isArray(prop.type) ? prop.type.join(' or ') : String(prop.type);
      return `argument '${name}' must be ${wanted}, got ${typeOf(value)}`;
    }
    if (Array.isArray(prop.enum) && !prop.enum.includes(value)) {
      return `argument '${name}' must be one of ${prop.enum.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    if (typeof value === 'string' && typeof prop.maxLength === 'number' && value.length > prop.maxLength) {
      return `argument '${name}' is longer than ${prop.maxLength} characters`;
    }
  }
  return null;
}
