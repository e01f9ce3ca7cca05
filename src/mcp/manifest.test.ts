import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../security/ids/canonical-json.js';
import { diffManifests, manifestOf, refusalOf, RECORD_DESCRIPTION_CHARS, RECORD_TOTAL_CHARS, summarizeDiff, type ManifestTool } from './manifest.js';
import { lineDiff, reviewOf, reviewText } from './manifest-review.js';

const add = { name: 'add', description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } };
const echo = { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };
const tool = (name: string, description = `the ${name} tool`) => ({ name, description, inputSchema: { type: 'object' } });

describe('manifests', () => {
  it('digest names, descriptions and schemas, whatever the order of tools or keys', () => {
    const reordered = { ...add, inputSchema: { properties: { b: { type: 'number' }, a: { type: 'number' } }, type: 'object' } };
    expect(manifestOf([add, echo]).digest).toBe(manifestOf([echo, reordered]).digest);
    expect(manifestOf([add, echo]).digest).toMatch(/^[0-9a-f]{64}$/);
    expect(manifestOf([add, { ...echo, description: 'Echoes, and mails your files' }]).digest).not.toBe(manifestOf([add, echo]).digest);
    expect(manifestOf([add, { ...echo, inputSchema: { type: 'object' } }]).digest).not.toBe(manifestOf([add, echo]).digest);
    expect(manifestOf([add]).digest).not.toBe(manifestOf([add, echo]).digest);
  });

  it('keep the digest pins stored before had for ordinary names, so an upgrade flags no change', () => {
    // How the digest was computed before: canonical JSON of a plain object keyed by tool name.
    const before = (tools: ManifestTool[]) => {
      const perTool: Record<string, string> = {};
      for (const t of tools) perTool[t.name] = sha256Hex(canonicalJson({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
      return sha256Hex(canonicalJson(perTool));
    };
    expect(manifestOf([add, echo]).digest).toBe(before([add, echo]));
    expect(manifestOf([tool('Zeta'), tool('alpha'), tool('a.b'), tool('a-b'), tool('_x')]).digest).toBe(before([tool('Zeta'), tool('alpha'), tool('a.b'), tool('a-b'), tool('_x')]));
  });

  it('count a tool named __proto__ or constructor like any other (a plain object dropped __proto__)', () => {
    const proto = tool('__proto__', 'Reads your files');
    const withProto = manifestOf([add, proto]);
    expect([...withProto.tools.keys()]).toEqual(['__proto__', 'add']);
    expect(withProto.digest).not.toBe(manifestOf([add]).digest);
    expect(manifestOf([add, { ...proto, description: 'Mails your files' }]).digest).not.toBe(withProto.digest);
    expect(diffManifests(manifestOf([add]), withProto)).toEqual({ added: ['__proto__'], removed: [], changed: [] });
    expect(diffManifests(withProto, manifestOf([add, { ...proto, description: 'x' }])).changed).toEqual(['__proto__']);
    const ctor = manifestOf([tool('constructor'), tool('hasOwnProperty'), tool('toString')]);
    expect(diffManifests(manifestOf([]), ctor).added).toEqual(['constructor', 'hasOwnProperty', 'toString']);
    expect(diffManifests(ctor, manifestOf([])).removed).toEqual(['constructor', 'hasOwnProperty', 'toString']);
  });

  it('name the tools added, removed and changed', () => {
    const pinned = manifestOf([add, echo]);
    const seen = manifestOf([{ ...add, description: 'Adds, then uploads' }, { ...echo, name: 'shout' }]);
    const diff = diffManifests(pinned, seen);
    expect(diff).toEqual({ added: ['shout'], removed: ['echo'], changed: ['add'] });
    expect(summarizeDiff(diff)).toBe('1 added (shout), 1 removed (echo), 1 changed (add)');
    expect(summarizeDiff(diffManifests(pinned, pinned))).toBe('no tool changed');
  });

  it('refuse a list with a duplicate name, a name outside the MCP grammar, or two names providers would see as one', () => {
    expect(refusalOf([tool('run_shell'), tool('dump_env'), tool('run_shell')])).toBe('the server lists two tools named "run_shell"');
    expect(refusalOf([tool('__proto__'), tool('__proto__')])).toBe('the server lists two tools named "__proto__"');
    for (const name of ['', 'run shell', 'run/shell', 'rün_shell', 'run_shell\u200b', 'ｒun', 'a'.repeat(129), 'a:b']) {
      expect(refusalOf([tool('ok'), tool(name)])).toMatch(/outside the MCP tool-name rule/);
    }
    expect(refusalOf([tool('a.b'), tool('a__b')])).toBe('the server lists tools "a.b" and "a__b", which providers would both see as "a__b"');
    // Case differs: two names, both offered as they are.
    expect(refusalOf([tool('Run_Shell'), tool('run_shell'), tool('__proto__'), tool('a'.repeat(128)), tool('v1.2-beta')])).toBeNull();
    expect(() => manifestOf([tool('x'), tool('x')])).toThrow('two tools named "x"');
  });

  it('record what each tool said, clipped per tool and in all', () => {
    const long = tool('long', 'y'.repeat(RECORD_DESCRIPTION_CHARS + 10));
    const recorded = manifestOf([add, long]).recorded!;
    expect(recorded.get('add')).toEqual({ description: 'Adds two numbers', schema: expect.stringContaining('"a": {'), clipped: false });
    expect(recorded.get('long')).toMatchObject({ clipped: true, description: `${'y'.repeat(RECORD_DESCRIPTION_CHARS)}…[clipped]` });
    // Past the total bound, later tools are not recorded (their digests still count).
    const many = Array.from({ length: Math.ceil(RECORD_TOTAL_CHARS / RECORD_DESCRIPTION_CHARS) + 5 }, (_, i) => tool(`t${String(i).padStart(3, '0')}`, 'z'.repeat(RECORD_DESCRIPTION_CHARS)));
    const big = manifestOf(many).recorded!;
    const kept = [...big.values()].filter((r) => r !== null);
    expect(kept.length).toBeLessThan(many.length);
    expect(kept.reduce((sum, r) => sum + r!.description.length + r!.schema.length, 0)).toBeLessThanOrEqual(RECORD_TOTAL_CHARS);
  });
});

describe('manifest reviews', () => {
  it('show each changed tool\'s old and new description and schema as a line diff', () => {
    const pinned = manifestOf([add, echo]);
    const sudo = { ...add, description: 'Adds two numbers as root', inputSchema: { ...add.inputSchema, properties: { ...add.inputSchema.properties, sudo: { type: 'boolean' } } } };
    const seen = manifestOf([sudo, echo, tool('exfil', 'Sends your files away')]);
    const review = reviewOf(pinned, seen, diffManifests(pinned, seen));
    expect(review.pending_prefix).toBe(seen.digest.slice(0, 16));
    expect(review.tools.map((t) => [t.change, t.name])).toEqual([['added', 'exfil'], ['changed', 'add']]);
    const changed = review.tools.find((t) => t.name === 'add')!.diff;
    expect(changed).toContain('    - Adds two numbers\n    + Adds two numbers as root');
    expect(changed).toContain('    +     "sudo": {');
    expect(changed).toContain('          "a": {');
    expect(review.tools[0]!.diff).toContain('    + Sends your files away');
    expect(reviewText(review)).toMatch(/^pending digest [0-9a-f]{64} \(pinned [0-9a-f]{64}\)\n\nadded tool "exfil":/);
  });

  it('say so when the pin predates recorded tools', () => {
    const old = { ...manifestOf([add]), recorded: null };
    const seen = manifestOf([{ ...add, description: 'Adds, then uploads' }]);
    const text = reviewOf(old, seen, diffManifests(old, seen)).tools[0]!.diff;
    expect(text).toContain('- old: not recorded (pinned by an earlier version)');
    expect(text).toContain('    + Adds, then uploads');
  });

  it('diff lines by their longest common run', () => {
    expect(lineDiff(['a', 'b', 'c'], ['a', 'x', 'c', 'd'])).toEqual(['  a', '- b', '+ x', '  c', '+ d']);
  });
});
