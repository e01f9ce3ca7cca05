/**
 * A small arithmetic language for the calculator tool, parsed by recursive descent. The model's
 * input is untrusted, so it is never handed to `eval`/`Function`: the only names that exist are the
 * ones in the tables below (held in Maps, so `constructor` or `__proto__` resolve to nothing).
 *
 *   expression := additive
 *   additive   := term (('+' | '-') term)*
 *   term       := unary (('*' | '/' | '%') unary)*
 *   unary      := ('-' | '+') unary | power
 *   power      := primary (('^' | '**') unary)?      right-associative; -2^2 = -(2^2)
 *   primary    := number | name | name '(' arguments ')' | '(' expression ')'
 */
export const MAX_EXPRESSION_LENGTH = 1000;
const MAX_DEPTH = 64;

export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
}

const CONSTANTS = new Map<string, number>([
  ['pi', Math.PI],
  ['e', Math.E],
  ['tau', 2 * Math.PI],
]);

type Fn = { arity: [min: number, max: number]; apply: (args: number[]) => number };
const FUNCTIONS = new Map<string, Fn>([
  ['sqrt', { arity: [1, 1], apply: ([x]) => Math.sqrt(x!) }],
  ['abs', { arity: [1, 1], apply: ([x]) => Math.abs(x!) }],
  ['round', { arity: [1, 1], apply: ([x]) => Math.round(x!) }],
  ['floor', { arity: [1, 1], apply: ([x]) => Math.floor(x!) }],
  ['ceil', { arity: [1, 1], apply: ([x]) => Math.ceil(x!) }],
  ['ln', { arity: [1, 1], apply: ([x]) => Math.log(x!) }],
  ['log10', { arity: [1, 1], apply: ([x]) => Math.log10(x!) }],
  ['log2', { arity: [1, 1], apply: ([x]) => Math.log2(x!) }],
  ['exp', { arity: [1, 1], apply: ([x]) => Math.exp(x!) }],
  ['sin', { arity: [1, 1], apply: ([x]) => Math.sin(x!) }],
  ['cos', { arity: [1, 1], apply: ([x]) => Math.cos(x!) }],
  ['tan', { arity: [1, 1], apply: ([x]) => Math.tan(x!) }],
  ['min', { arity: [1, 100], apply: (xs) => Math.min(...xs) }],
  ['max', { arity: [1, 100], apply: (xs) => Math.max(...xs) }],
]);

export type Expr =
  | { kind: 'number'; value: number }
  | { kind: 'unary'; op: '-' | '+'; operand: Expr }
  | { kind: 'binary'; op: '+' | '-' | '*' | '/' | '%' | '^'; left: Expr; right: Expr }
  | { kind: 'call'; name: string; args: Expr[] };

type Token =
  | { type: 'number'; value: number; at: number }
  | { type: 'name'; value: string; at: number }
  | { type: 'op'; value: string; at: number };

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const rest = source.slice(i);
    const num = NUMBER.exec(rest);
    if (num) {
      tokens.push({ type: 'number', value: Number(num[0]), at: i });
      i += num[0].length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      tokens.push({ type: 'name', value: name[0].toLowerCase(), at: i });
      i += name[0].length;
      continue;
    }
    if (rest.startsWith('**')) {
      tokens.push({ type: 'op', value: '^', at: i });
      i += 2;
      continue;
    }
    if ('+-*/%^(),'.includes(ch)) {
      tokens.push({ type: 'op', value: ch, at: i });
      i++;
      continue;
    }
    throw new ExpressionError(`unexpected character '${ch}' at position ${i + 1}`);
  }
  return tokens;
}

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Expr {
    if (this.tokens.length === 0) throw new ExpressionError('empty expression');
    const expr = this.additive();
    const extra = this.tokens[this.pos];
    if (extra) throw new ExpressionError(`unexpected '${String(extra.value)}' at position ${extra.at + 1}`);
    return expr;
  }

  private peekOp(...ops: string[]): string | undefined {
    const t = this.tokens[this.pos];
    return t?.type === 'op' && ops.includes(t.value) ? t.value : undefined;
  }

  private expectOp(op: string): void {
    const t = this.tokens[this.pos];
    if (t?.type !== 'op' || t.value !== op) {
      throw new ExpressionError(t ? `expected '${op}' at position ${t.at + 1}` : `expected '${op}' at end of expression`);
    }
    this.pos++;
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new ExpressionError('expression is nested too deeply');
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private additive(): Expr {
    let left = this.term();
    for (let op = this.peekOp('+', '-'); op; op = this.peekOp('+', '-')) {
      this.pos++;
      left = { kind: 'binary', op: op as '+' | '-', left, right: this.term() };
    }
    return left;
  }

  private term(): Expr {
    let left = this.unary();
    for (let op = this.peekOp('*', '/', '%'); op; op = this.peekOp('*', '/', '%')) {
      this.pos++;
      left = { kind: 'binary', op: op as '*' | '/' | '%', left, right: this.unary() };
    }
    return left;
  }

  private unary(): Expr {
    const op = this.peekOp('-', '+');
    if (op) {
      this.pos++;
      return this.nested(() => ({ kind: 'unary', op: op as '-' | '+', operand: this.unary() }));
    }
    return this.power();
  }

  private power(): Expr {
    const base = this.primary();
    if (this.peekOp('^')) {
      this.pos++;
      return this.nested(() => ({ kind: 'binary', op: '^', left: base, right: this.unary() }));
    }
    return base;
  }

  private primary(): Expr {
    const t = this.tokens[this.pos];
    if (!t) throw new ExpressionError('unexpected end of expression');
    this.pos++;
    if (t.type === 'number') return { kind: 'number', value: t.value };
    if (t.type === 'name') return this.name(t.value);
    if (t.value === '(') {
      const inner = this.nested(() => this.additive());
      this.expectOp(')');
      return inner;
    }
    throw new ExpressionError(`unexpected '${t.value}' at position ${t.at + 1}`);
  }

  private name(name: string): Expr {
    if (this.peekOp('(')) {
      const fn = FUNCTIONS.get(name);
      if (!fn) throw new ExpressionError(`unknown function '${name}'`);
      this.pos++;
      const args: Expr[] = [];
      if (!this.peekOp(')')) {
        for (;;) {
          args.push(this.nested(() => this.additive()));
          if (!this.peekOp(',')) break;
          this.pos++;
        }
      }
      this.expectOp(')');
      const [min, max] = fn.arity;
      if (args.length < min || args.length > max) {
        throw new ExpressionError(`${name}() takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? '' : 's'}`);
      }
      return { kind: 'call', name, args };
    }
    const value = CONSTANTS.get(name);
    if (value === undefined) throw new ExpressionError(`unknown name '${name}'`);
    return { kind: 'number', value };
  }
}

/** Parses without evaluating; throws `ExpressionError` on bad syntax or unknown names. */
export function parseExpression(source: string): Expr {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(`expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  return new Parser(tokenize(source)).parse();
}

function evaluate(expr: Expr): number {
  switch (expr.kind) {
    case 'number':
      return expr.value;
    case 'unary':
      return expr.op === '-' ? -evaluate(expr.operand) : evaluate(expr.operand);
    case 'call':
      return FUNCTIONS.get(expr.name)!.apply(expr.args.map(evaluate));
    case 'binary': {
      const a = evaluate(expr.left);
      const b = evaluate(expr.right);
      switch (expr.op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/':
          if (b === 0) throw new ExpressionError('division by zero');
          return a / b;
        case '%':
          if (b === 0) throw new ExpressionError('division by zero');
          return a % b;
        case '^': return a ** b;
      }
    }
  }
}

/** Evaluates `source`; throws `ExpressionError` for bad syntax, division by zero or a non-finite result. */
export function evaluateExpression(source: string): number {
  const result = evaluate(parseExpression(source));
  if (!Number.isFinite(result)) throw new ExpressionError('the result is not a finite number');
  // 12 significant digits hide binary floating-point noise (0.1 + 0.2) without losing real precision.
  const rounded = Number(result.toPrecision(12));
  return Object.is(rounded, -0) ? 0 : rounded;
}
