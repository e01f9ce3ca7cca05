import { describe, expect, it } from 'vitest';
import { evaluateExpression, ExpressionError, MAX_EXPRESSION_LENGTH } from './expression.js';

describe('evaluateExpression', () => {
  it.each([
    ['17*23', 391],
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 - 4 - 3', 3],
    ['100 / 10 / 5', 2],
    ['7 % 4', 3],
    ['2 ^ 3 ^ 2', 512],
    ['2 ** 3 ** 2', 512],
    ['(2 ^ 3) ^ 2', 64],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    ['-3 * -3', 9],
    ['--4', 4],
    ['+5', 5],
    ['1.5e3 + .5', 1500.5],
    ['2E-2', 0.02],
    ['0.1 + 0.2', 0.3],
    ['sqrt(16) + abs(-3)', 7],
    ['round(2.5) + floor(1.9) + ceil(1.1)', 6],
    ['min(4, 2, 8) + max(1, 9)', 11],
    ['2 * pi', 2 * Math.PI],
    ['e', Math.E],
    ['SQRT(81)', 9],
    ['  ( ( 1 ) )  ', 1],
    ['-0', 0],
  ])('%s = %d', (source, expected) => {
    expect(evaluateExpression(source)).toBeCloseTo(expected, 10);
  });

  it.each([
    ['1 / 0', 'division by zero'],
    ['5 % 0', 'division by zero'],
    ['', 'empty expression'],
    ['1 +', 'unexpected end'],
    ['(1 + 2', "expected ')'"],
    ['1 2', "unexpected '2'"],
    ['2 $ 3', "unexpected character '$'"],
    ['foo(1)', "unknown function 'foo'"],
    ['x + 1', "unknown name 'x'"],
    ['constructor', "unknown name 'constructor'"],
    ['__proto__', "unknown name '__proto__'"],
    ['process.exit(1)', "unexpected character '.'"],
    ['toString()', "unknown function 'tostring'"],
    ['sqrt(1, 2)', 'takes 1 argument'],
    ['sqrt(-1)', 'not a finite number'],
    ['10 ^ 400', 'not a finite number'],
    ['1e999', 'not a finite number'],
    ['2e', "unexpected 'e'"],
  ])('%s is refused (%s)', (source, message) => {
    expect(() => evaluateExpression(source)).toThrow(ExpressionError);
    expect(() => evaluateExpression(source)).toThrow(message);
  });

  it('caps the input length and the nesting depth instead of overflowing the stack', () => {
    expect(() => evaluateExpression('1+'.repeat(MAX_EXPRESSION_LENGTH))).toThrow('longer than');
    expect(() => evaluateExpression(`${'('.repeat(200)}1${')'.repeat(200)}`)).toThrow('nested too deeply');
    expect(() => evaluateExpression(`${'-'.repeat(500)}1`)).toThrow('nested too deeply');
    expect(evaluateExpression(`${'('.repeat(30)}1${')'.repeat(30)}`)).toBe(1);
  });
});
