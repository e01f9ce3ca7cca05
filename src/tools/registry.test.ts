import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../../test/helpers/storage.js';
import { createMemorySearchTool } from '../memory/memory-search-tool.js';
import { createToolRegistry, MAX_TOOL_OUTPUT_CHARS, ToolRegistry } from './index.js';
import type { ToolDefinition } from './types.js';

const context = () => ({ sessionId: 's1', runId: 'r1', signal: new AbortController().signal });
const noGateway = () => {
  throw new Error('no network in this test');
};

function tool(partial: Partial<ToolDefinition> & Pick<ToolDefinition, 'name' | 'run'>): ToolDefinition {
  return { description: 'test tool', schema: { type: 'object', properties: {} }, ...partial };
}

describe('ToolRegistry', () => {
  it('lists the built-in tools with name, description and JSON schema, and accepts extra tools', () => {
    const extra = tool({ name: 'memory_search', run: async () => 'none' });
    const registry = createToolRegistry({ gatewayClientFactory: noGateway, extraTools: [extra] });
    expect(registry.list().map((t) => t.name)).toEqual(['current_time', 'calculator', 'web_fetch', 'memory_search']);
    for (const spec of registry.list()) {
      expect(spec.description.length).toBeGreaterThan(5);
      expect(spec.schema.type).toBe('object');
      expect(Object.keys(spec)).toEqual(['name', 'description', 'schema']);
    }
    expect(registry.get('calculator')?.name).toBe('calculator');
    expect(registry.size).toBe(4);
  });

  it('refuses duplicate and malformed names', () => {
    const registry = new ToolRegistry();
    registry.register(tool({ name: 'a', run: async () => '' }));
    expect(() => registry.register(tool({ name: 'a', run: async () => '' }))).toThrow(/already registered/);
    expect(() => registry.register(tool({ name: 'has space', run: async () => '' }))).toThrow(/invalid tool name/);
  });

  it('takes dotted names, offers them to providers with __ for each dot and maps them back', async () => {
    const registry = new ToolRegistry();
    registry.register(tool({ name: 'mcp.notes.add', server: 'notes', run: async () => 'added' }));
    expect(registry.listForProviders().map((t) => t.name)).toEqual(['mcp__notes__add']);
    expect(registry.fromWireName('mcp__notes__add')).toBe('mcp.notes.add');
    expect(registry.fromWireName('calculator')).toBe('calculator');
    expect(registry.catalog()).toEqual([{ name: 'mcp.notes.add', description: 'test tool', schema: { type: 'object', properties: {} }, server: 'notes' }]);
    expect(() => registry.register(tool({ name: 'mcp__notes__add', run: async () => '' }))).toThrow(/would reach providers as 'mcp__notes__add'/);
    expect(() => registry.register(tool({ name: `mcp.s.${'x'.repeat(57)}`, run: async () => '' }))).toThrow(/invalid tool name/);
  });

  it('withdraws a tool, and a listing can tell the registry changed', async () => {
    const registry = new ToolRegistry();
    registry.register(tool({ name: 'mcp.notes.add', run: async () => 'added' }));
    const version = registry.version;
    expect(registry.unregister('mcp.notes.add')).toBe(true);
    expect(registry.unregister('mcp.notes.add')).toBe(false);
    expect(registry.version).toBe(version + 1);
    expect(registry.fromWireName('mcp__notes__add')).toBe('mcp__notes__add');
    expect((await registry.execute('mcp.notes.add', {}, context())).output).toMatch(/^unknown tool 'mcp.notes.add'/);
  });

  it('executes a tool and reports its output and duration', async () => {
    const registry = createToolRegistry({ gatewayClientFactory: noGateway });
    const result = await registry.execute('calculator', { expression: '17*23' }, context());
    expect(result).toMatchObject({ output: '391', isError: false });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('turns unknown tools, bad arguments and thrown errors into error results', async () => {
    const registry = createToolRegistry({ gatewayClientFactory: noGateway });
    registry.register(tool({ name: 'boom', run: async () => { throw new Error('it broke, api_key=sk-ant-abcdefghijklmnop1234'); } }));

    const unknown = await registry.execute('nope', {}, context());
    expect(unknown.isError).toBe(true);
    expect(unknown.output).toMatch(/unknown tool 'nope'.*calculator/);

    expect(await registry.execute('calculator', {}, context())).toMatchObject({ isError: true, output: expect.stringMatching(/missing required argument 'expression'/) });
    expect(await registry.execute('calculator', { expression: 42 }, context())).toMatchObject({ isError: true, output: expect.stringMatching(/'expression' must be string, got integer/) });
    expect(await registry.execute('calculator', { expression: '1', extra: true }, context())).toMatchObject({ isError: true, output: expect.stringMatching(/unexpected argument 'extra'/) });
    expect(await registry.execute('calculator', 'not an object', context())).toMatchObject({ isError: true, output: expect.stringMatching(/must be a JSON object, got string/) });
    expect(await registry.execute('calculator', null, context())).toMatchObject({ isError: true });
    expect(await registry.execute('calculator', { expression: '1/0' }, context())).toMatchObject({ isError: true, output: 'division by zero' });
    expect(await registry.execute('current_time', { timezone: 'Nowhere/City' }, context())).toMatchObject({ isError: true, output: expect.stringMatching(/unknown time zone/) });

    const boom = await registry.execute('boom', {}, context());
    expect(boom.isError).toBe(true);
    expect(boom.output).toContain('it broke');
    expect(boom.output).not.toContain('sk-ant-abcdefghijklmnop1234');
  });

  it('validates types, enums and unions from the schema', async () => {
    const registry = new ToolRegistry();
    registry.register(tool({
      name: 'typed',
      schema: {
        type: 'object',
        properties: {
          n: { type: 'number' },
          i: { type: 'integer' },
          mode: { type: 'string', enum: ['a', 'b'] },
          maybe: { type: ['string', 'null'] },
        },
        required: ['n'],
      },
      run: async (args) => JSON.stringify(args),
    }));
    expect((await registry.execute('typed', { n: 1.5, i: 2, mode: 'a', maybe: null, other: 1 }, context())).isError).toBe(false);
    expect((await registry.execute('typed', { n: '1' }, context())).output).toMatch(/'n' must be number, got string/);
    expect((await registry.execute('typed', { n: 1, i: 1.5 }, context())).output).toMatch(/'i' must be integer, got number/);
    expect((await registry.execute('typed', { n: 1, mode: 'c' }, context())).output).toMatch(/'mode' must be one of "a", "b"/);
    expect((await registry.execute('typed', { n: 1, maybe: 3 }, context())).output).toMatch(/'maybe' must be string or null/);
  });

  it('enforces every JSON Schema keyword, naming the argument', async () => {
    const registry = new ToolRegistry();
    registry.register(tool({
      name: 'strict',
      schema: {
        type: 'object',
        properties: {
          code: { type: 'string', pattern: '^[A-Z]{3}$' },
          count: { type: 'integer', minimum: 1, maximum: 10 },
          target: { oneOf: [{ type: 'string', minLength: 1 }, { type: 'object', required: ['id'], properties: { id: { type: 'string' } } }] },
          nested: { type: 'object', properties: { mode: { enum: ['fast', 'slow'] } } },
        },
      },
      run: async () => 'ran',
    }));
    const output = async (args: unknown) => (await registry.execute('strict', args, context())).output;
    expect(await output({ code: 'ABC', count: 3, target: { id: 'x' }, nested: { mode: 'fast' } })).toBe('ran');
    expect(await output({ code: 'abcd' })).toBe('invalid arguments for strict: argument \'code\' must match pattern "^[A-Z]{3}$"');
    expect(await output({ count: 0 })).toBe('invalid arguments for strict: argument \'count\' must be >= 1');
    expect(await output({ count: 11 })).toBe('invalid arguments for strict: argument \'count\' must be <= 10');
    expect(await output({ target: 5 })).toBe("invalid arguments for strict: argument 'target' must be string, got integer");
    expect(await output({ target: {} })).toBe("invalid arguments for strict: argument 'target' must be string, got object");
    expect(await output({ target: '' })).toBe("invalid arguments for strict: argument 'target' must NOT have fewer than 1 characters");
    expect(await output({ nested: { mode: 'warp' } })).toBe('invalid arguments for strict: argument \'nested.mode\' must be one of "fast", "slow"');
  });

  it('compiles the schema of every tool the service registers (they are compiled at their first call there)', () => {
    const serviceTools = createToolRegistry({ gatewayClientFactory: noGateway, extraTools: [createMemorySearchTool(memoryStorage().turns)] });
    const checked = new ToolRegistry();
    for (const spec of serviceTools.list()) checked.register(tool({ ...spec, run: async () => '' }));
    expect(checked.list().map((t) => t.name)).toEqual(['current_time', 'calculator', 'web_fetch', 'memory_search']);
  });

  it('checks the arguments of a tool registered to compile at its first call, and refuses its invalid schema at that call', async () => {
    const registry = new ToolRegistry();
    registry.register(tool({ name: 'later', schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } }, run: async () => 'ran' }), 'at-first-call');
    expect((await registry.execute('later', {}, context())).output).toBe("invalid arguments for later: missing required argument 'n'");
    expect((await registry.execute('later', { n: 1 }, context())).output).toBe('ran');
    registry.register(tool({ name: 'typo', schema: { type: 'object', properties: { a: { maxLenght: 3 } } }, run: async () => '' }), 'at-first-call');
    const result = await registry.execute('typo', {}, context());
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/tool 'typo' has an invalid argument schema: .*maxLenght/);
  });

  it('refuses at registration a schema whose keywords it does not know', () => {
    const registry = new ToolRegistry();
    expect(() => registry.register(tool({ name: 'typo', schema: { type: 'object', properties: { a: { type: 'string', maxLenght: 3 } } }, run: async () => '' })))
      .toThrow(/tool 'typo' has an invalid argument schema: .*maxLenght/);
    expect(registry.has('typo')).toBe(false);
  });

  it('does not run a tool once the run is cancelled, and cuts oversized output', async () => {
    const registry = new ToolRegistry();
    let ran = false;
    registry.register(tool({ name: 'slow', run: async () => { ran = true; return 'x'; } }));
    registry.register(tool({ name: 'big', run: async () => 'y'.repeat(MAX_TOOL_OUTPUT_CHARS + 10) }));
    const controller = new AbortController();
    controller.abort();
    const cancelled = await registry.execute('slow', {}, { sessionId: 's', signal: controller.signal });
    expect(cancelled).toMatchObject({ isError: true, output: 'slow was cancelled' });
    expect(ran).toBe(false);
    const big = await registry.execute('big', {}, context());
    expect(big.output.length).toBeLessThan(MAX_TOOL_OUTPUT_CHARS + 100);
    expect(big.output).toMatch(/\[truncated: 10 more characters\]$/);
  });
});
