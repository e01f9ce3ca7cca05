import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/**
 * Tool arguments checked against the tool's declared JSON Schema by a complete validator, so every
 * keyword a schema uses (pattern, minimum, oneOf …) is enforced and a tool can rely on what it
 * receives. Models do send wrong shapes; the message names the argument, so that fed back as an
 * error result it lets the model correct the call.
 */
export type ArgsValidator = (args: unknown) => string | null;

/**
 * A compiler of argument validators: one per registry, so that schemas of separate registries
 * (an `$id` used twice) cannot collide. Each schema is compiled once; an invalid one throws.
 */
export function argsValidatorCompiler(): (schema: Record<string, unknown>) => ArgsValidator {
  // Strict: a keyword the validator does not know is a registration error, never silently ignored.
  // No coercion and no defaults: the arguments are checked as the model sent them.
  // Built when the first schema is compiled: a registry whose tools are all compiled at their first call starts without it.
  let ajv: Ajv | undefined;
  return (schema) => {
    ajv ??= new Ajv({ strict: true, allowUnionTypes: true, allErrors: false, coerceTypes: false, useDefaults: false });
    return validatorFor(ajv.compile(schema));
  };
}

function validatorFor(validate: ValidateFunction): ArgsValidator {
  return (args) => {
    if (typeOf(args) !== 'object') return `arguments must be a JSON object, got ${typeOf(args)}`;
    if (validate(args)) return null;
    const first = validate.errors?.[0];
    return first ? describe(first, args) : 'arguments do not match the schema';
  };
}

function describe(error: ErrorObject, args: unknown): string {
  const path = error.instancePath.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const field = path.join('.');
  const prefix = field ? `${field}.` : '';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `missing required argument '${prefix}${String(params.missingProperty)}'`;
    case 'additionalProperties':
      return `unexpected argument '${prefix}${String(params.additionalProperty)}'`;
    case 'type':
      return `${subject(field)} must be ${String(params.type).split(',').join(' or ')}, got ${typeOf(valueAt(args, path))}`;
    case 'enum':
      return `${subject(field)} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${subject(field)} ${error.message ?? 'is invalid'}`;
  }
}

const subject = (field: string) => (field ? `argument '${field}'` : 'arguments');

function valueAt(root: unknown, path: string[]): unknown {
  let value = root;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
