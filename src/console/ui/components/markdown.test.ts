import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown } from './markdown.js';

const text = (value: string) => ({ type: 'text', text: value });

describe('parseMarkdown', () => {
  it('reads headings, paragraphs, lists and fenced code blocks', () => {
    const blocks = parseMarkdown('# Title\n\nfirst line\nsecond line\n\n- one\n- two\n  more\n\n3. three\n4. four\n\n```ts\nconst a = 1 < 2;\n```\nafter');
    expect(blocks).toEqual([
      { type: 'heading', level: 1, children: [text('Title')] },
      { type: 'paragraph', children: [text('first line'), { type: 'break' }, text('second line')] },
      { type: 'list', ordered: false, start: 1, items: [[text('one')], [text('two'), { type: 'break' }, text('more')]] },
      { type: 'list', ordered: true, start: 3, items: [[text('three')], [text('four')]] },
      { type: 'code', lang: 'ts', text: 'const a = 1 < 2;' },
      { type: 'paragraph', children: [text('after')] },
    ]);
  });

  it('keeps an unclosed fence open to the end, as a streaming answer has it', () => {
    expect(parseMarkdown('look:\n```\nline 1\nline 2')).toEqual([
      { type: 'paragraph', children: [text('look:')] },
      { type: 'code', lang: '', text: 'line 1\nline 2' },
    ]);
  });

  it('keeps raw HTML as text', () => {
    expect(parseMarkdown('<img src=x onerror="alert(1)"> <script>x</script>')).toEqual([
      { type: 'paragraph', children: [text('<img src=x onerror="alert(1)"> <script>x</script>')] },
    ]);
  });
});

describe('parseInline', () => {
  it('reads emphasis, strong, inline code and nesting', () => {
    expect(parseInline('a **bold _and em_** `x * y` *it*')).toEqual([
      text('a '),
      { type: 'strong', children: [text('bold '), { type: 'em', children: [text('and em')] }] },
      text(' '),
      { type: 'code', text: 'x * y' },
      text(' '),
      { type: 'em', children: [text('it')] },
    ]);
  });

  it('leaves snake_case names, lone stars and unclosed markers as text', () => {
    expect(parseInline('call snake_case_name with 2 * 3 and **open')).toEqual([text('call snake_case_name with 2 * 3 and **open')]);
  });

  it('links http, https and mailto targets, and bare web addresses', () => {
    expect(parseInline('[docs](https://example.com/a?b=1) or [mail](mailto:ops@example.com), see http://example.org/x.')).toEqual([
      { type: 'link', href: 'https://example.com/a?b=1', children: [text('docs')] },
      text(' or '),
      { type: 'link', href: 'mailto:ops@example.com', children: [text('mail')] },
      text(', see '),
      { type: 'link', href: 'http://example.org/x', children: [text('http://example.org/x')] },
      text('.'),
    ]);
  });

  it('shows a javascript:, data: or relative link as its source text, not as a link', () => {
    for (const source of ['[click](javascript:alert(1))', '[img](data:text/html;base64,PHNjcmlwdD4=)', '[rel](/api/v1/x)', '[js](JavaScript:void(0))']) {
      const nodes = parseInline(source);
      expect(nodes.some((node) => node.type === 'link'), source).toBe(false);
      expect(nodes.map((node) => (node.type === 'text' ? node.text : '')).join('')).toBe(source);
    }
  });

  it('reads hostile input full of unmatched markers in linear time', () => {
    const hostile = `\`\`${'*a _b [c ](d '.repeat(20_000)}`;
    const started = performance.now();
    const nodes = parseInline(hostile);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(nodes).toHaveLength(1);
    expect(nodes[0]!.type === 'text' && nodes[0]!.text === hostile).toBe(true);
  });
});
