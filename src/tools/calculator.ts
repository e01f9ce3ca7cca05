import { evaluateExpression, MAX_EXPRESSION_LENGTH } from './expression.js';
import type { ToolDefinition } from './types.js';

/** Arithmetic for the model, evaluated by our own parser (see expression.ts): never `eval`. */
export function createCalculatorTool(): ToolDefinition {
  return {
    name: 'calculator',
    description:
      'Evaluate an arithmetic expression exactly. Supports + - * / % and ^ (or **), parentheses, unary minus, ' +
      'decimals and exponents (1.5e3), the constants pi, e and tau, and the functions sqrt, abs, round, floor, ceil, ' +
      'ln, log10, log2, exp, sin, cos, tan, min and max. Returns the numeric result.',
    schema: {
      type: 'object',
      properties: {
        expression: {
          type: 'string',
          description: 'The expression to evaluate, for example "17*23" or "sqrt(2)^2 + (3 - 1) / 4".',
          maxLength: MAX_EXPRESSION_LENGTH,
        },
      },
      required: ['expression'],
      additionalProperties: false,
    },
    async run(args) {
      return String(evaluateExpression(args.expression as string));
    },
  };
}
