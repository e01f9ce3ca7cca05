import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * One enforcement point: no code under src/ outside src/gateway/ may reach the network by itself.
 * The scanner looks for the ways Node code sends outbound traffic — `fetch`, the request functions
 * of node:http(s)/http2, undici, raw sockets from node:net/tls — and the self-test below proves it
 * catches each one (and leaves servers, types and `client.fetch` alone).
 */

interface Violation {
  file: string;
  line: number;
  rule: string;
}

/**
 * One pass over the source: `text` has comments replaced by spaces, `code` additionally blanks the
 * inside of string, template and regular-expression literals (so a message or an inlined browser
 * script mentioning `fetch(` is not code). Newlines are kept in both, so line numbers stay right.
 */
function lex(source: string): { text: string; code: string } {
  let text = '';
  let code = '';
  const emit = (raw: string, blank: boolean) => {
    text += raw;
    code += blank ? raw.replace(/[^\n]/g, ' ') : raw;
  };
  let i = 0;
  let lastSignificant = '';
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end < 0 ? source.length : end;
      const blank = source.slice(i, stop).replace(/[^\n]/g, ' ');
      text += blank;
      code += blank;
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : end + 2;
      const blank = source.slice(i, stop).replace(/[^\n]/g, ' ');
      text += blank;
      code += blank;
      i = stop;
    } else if (c === '"' || c === "'" || c === '`' || (c === '/' && (lastSignificant === '' || '(,=:[!&|?{};+-*%<>~^'.includes(lastSignificant)))) {
      // A literal: find its end (escapes skipped; a regex class may contain an unescaped `/`).
      let j = i + 1;
      let inClass = false;
      while (j < source.length) {
        const d = source[j]!;
        if (d === '\\') {
          j += 2;
          continue;
        }
        if (c === '/' && d === '[') inClass = true;
        else if (c === '/' && d === ']') inClass = false;
        else if (d === c && !inClass) break;
        else if (d === '\n' && c !== '`') break;
        j++;
      }
      const closed = j < source.length && source[j] === c;
      emit(c, false);
      emit(source.slice(i + 1, j), true);
      if (closed) emit(c, false);
      i = closed ? j + 1 : j;
      lastSignificant = 'a';
    } else {
      emit(c, false);
      if (!/\s/.test(c)) lastSignificant = /[\w$)\]]/.test(c) ? 'a' : c;
      i++;
    }
  }
  return { text, code };
}

const HTTP_MODULES = /^(?:node:)?(?:http|https|http2)$/;
const SOCKET_MODULES = /^(?:node:)?(?:net|tls)$/;
const UNDICI = /^undici(?:\/.*)?$/;
const HTTP_FUNCTIONS = ['request', 'get', 'Agent', 'globalAgent', 'ClientRequest', 'connect'];
const SOCKET_FUNCTIONS = ['connect', 'createConnection', 'Socket', 'TLSSocket'];

/** The MCP SDK's transports that open their own connections: SSE and WebSocket cannot take the gateway's fetch. */
const MCP_UNGATED_TRANSPORTS = /^@modelcontextprotocol\/sdk\/client\/(?:sse|websocket)(?:\.js)?$/;
const MCP_HTTP_TRANSPORT = /\bnew\s+StreamableHTTPClientTransport\s*\(/g;
/** `@discordjs/rest` sends with its own undici client unless it is handed a `makeRequest`. */
const DISCORD_REST = /\bnew\s+REST\s*\(/g;

/** The text from an opening parenthesis to its match (or to the end), in code with literals blanked. */
function argumentsAt(code: string, open: number): string {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === '(') depth++;
    else if (code[i] === ')' && --depth === 0) return code.slice(open, i + 1);
  }
  return code.slice(open);
}

const IMPORT = /\b(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*(['"])([^'"]+)\4/g;
const DYNAMIC = /\b(?:import|require)\s*\(\s*(['"])([^'"]+)\1\s*\)/g;

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

function scanSource(source: string, file: string): Violation[] {
  const { text, code } = lex(source);
  const found: Violation[] = [];
  const flag = (index: number, rule: string) => found.push({ file, line: lineOf(text, index), rule });

  for (const match of text.matchAll(IMPORT)) {
    const [, keyword, typeOnly, clause = '', , specifier = ''] = match;
    if (typeOnly) continue;
    const isHttp = HTTP_MODULES.test(specifier);
    const isSocket = SOCKET_MODULES.test(specifier);
    if (UNDICI.test(specifier)) {
      flag(match.index, `imports ${specifier}`);
      continue;
    }
    if (MCP_UNGATED_TRANSPORTS.test(specifier)) {
      flag(match.index, `imports ${specifier}, which connects without the gateway`);
      continue;
    }
    if (!isHttp && !isSocket) continue;
    const forbidden = isHttp ? HTTP_FUNCTIONS : SOCKET_FUNCTIONS;
    if (keyword === 'export' && /\*/.test(clause)) flag(match.index, `re-exports ${specifier}`);
    const named = /\{([^}]*)\}/.exec(clause)?.[1] ?? '';
    for (const part of named.split(',')) {
      const [name] = part.trim().split(/\s+as\s+/);
      if (name && !name.startsWith('type ') && forbidden.includes(name)) flag(match.index, `imports ${name} from ${specifier}`);
    }
    // Default or namespace binding: `import http from`, `import * as net from`.
    const binding = /^(?:\*\s*as\s+)?([A-Za-z_$][\w$]*)/.exec(clause.replace(/\{[^}]*\}/, '').trim())?.[1];
    if (binding) {
      const use = new RegExp(`\\b${binding.replace(/\$/g, '\\$')}\\s*\\.\\s*(${forbidden.join('|')})\\b`, 'g');
      for (const m of code.matchAll(use)) flag(m.index, `${binding}.${m[1]} (${specifier})`);
    }
  }
  for (const match of text.matchAll(DYNAMIC)) {
    const specifier = match[2]!;
    if (UNDICI.test(specifier) || HTTP_MODULES.test(specifier) || SOCKET_MODULES.test(specifier)) {
      flag(match.index, `loads ${specifier} dynamically`);
    }
  }
  // The SDK's Streamable HTTP transport falls back to the global fetch unless it is handed one.
  for (const m of code.matchAll(MCP_HTTP_TRANSPORT)) {
    if (!/\bfetch\s*:/.test(argumentsAt(code, m.index + m[0].length - 1))) flag(m.index, 'creates an MCP HTTP transport without the gateway\'s fetch');
  }
  for (const m of code.matchAll(DISCORD_REST)) {
    if (!/\bmakeRequest\s*:/.test(argumentsAt(code, m.index + m[0].length - 1))) flag(m.index, 'creates a Discord REST client without the gateway\'s fetch as makeRequest');
  }
  for (const m of code.matchAll(/(?<![\w$.])fetch\s*\(/g)) flag(m.index, 'calls the global fetch');
  for (const m of code.matchAll(/\b(?:globalThis|global|window|self)\s*\.\s*fetch\b/g)) flag(m.index, 'uses the global fetch');
  // `fetch` as a value (`const f = fetch`, `{ fetch }`), not as a key, member or type annotation.
  for (const m of code.matchAll(/(?<![\w$.])fetch\b(?!\s*\??\s*:)(?!\s*\()/g)) flag(m.index, 'passes the global fetch around');
  return found;
}

const CONSOLE_UI = fileURLToPath(new URL('../src/console/ui', import.meta.url));

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // The operator console's sources run in the operator's browser, not in this process: their
    // requests go to agentd itself, which is the browser's business, not the gateway's.
    if (entry.isDirectory()) {
      if (path !== CONSOLE_UI) files.push(...sourceFiles(path));
    }
    // TypeScript only: the service's code is TypeScript.
    else if (/\.[mc]?ts$/.test(entry.name) && !/\.test\.[mc]?ts$/.test(entry.name)) files.push(path);
  }
  return files;
}

const root = fileURLToPath(new URL('..', import.meta.url));

describe('the scanner', () => {
  it.each([
    ['await fetch(url)', true],
    ['const r = await fetch (url, { method: "POST" })', true],
    ['globalThis.fetch(url)', true],
    ['const f = fetch;', true],
    ['new OpenAI({ fetch })', true],
    ["import { request } from 'undici';", true],
    ["import * as undici from 'undici';", true],
    ["import { Agent } from 'undici/lib/dispatcher/agent.js';", true],
    ["const { request } = await import('undici');", true],
    ["import http from 'node:http'; http.request(options);", true],
    ["import * as https from 'https'; https.get(url, cb);", true],
    ["import { get } from 'node:https';", true],
    ["import { request as send } from 'http';", true],
    ["import http2 from 'node:http2'; http2.connect(origin);", true],
    ["import net from 'node:net'; net.connect(443, host);", true],
    ["import { createConnection } from 'net';", true],
    ["import * as tls from 'node:tls'; tls.connect({ host });", true],
    ["const net = require('node:net');", true],
    ["export * from 'node:http';", true],
    // Allowed: servers, types, members named fetch, words in strings and comments.
    ["import { createServer } from 'node:http';", false],
    ["import http from 'node:http'; http.createServer(handler); http.STATUS_CODES[404];", false],
    ["import type { IncomingMessage } from 'node:http';", false],
    ["import { type Socket, isIP } from 'node:net';", false],
    ["import type { Dispatcher } from 'undici';", false],
    ['const response = await client.fetch(url);', false],
    ['new OpenAI({ fetch: client.fetch });', false],
    ['interface Port { fetch: FetchFunction; fetch?: unknown }', false],
    ["throw new Error('fetch(url) failed');", false],
    ['// we never call fetch(url) here', false],
    ['/* globalThis.fetch(url) */', false],
    ['const web_fetch = 1; prefetch(x);', false],
    ['const page = `<script>\n  await fetch("/api/v1/runs");\n</script>`;', false],
    ["const quote = /['\"]/g; await fetch(url);", true],
    ['const slash = /[/]fetch\\(/; client.fetch(url);', false],
    ['const ratio = a / b; const f = fetch;', true],
    // MCP: the HTTP transport only with a fetch handed in; the transports that cannot take one not at all.
    ['new StreamableHTTPClientTransport(new URL(url));', true],
    ['new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: h(x) } });', true],
    ['new StreamableHTTPClientTransport(new URL(url), { fetch: (input, init) => client.fetch(input, init) });', false],
    ["import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';", true],
    ["import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';", true],
    ["import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';", false],
    // Discord REST: only with the gateway's fetch as its makeRequest.
    ["new REST({ api: base }).setToken(token);", true],
    ["new REST({ api: base, makeRequest: (url, init) => send(url, init) });", false],
  ])('%s → %s', (snippet, violates) => {
    expect(scanSource(snippet, 'snippet.ts').length > 0).toBe(violates);
  });

  it('reports the line of the violation', () => {
    expect(scanSource('const a = 1;\n// fetch(x)\nawait fetch(x);\n', 'f.ts')).toEqual([{ file: 'f.ts', line: 3, rule: 'calls the global fetch' }]);
    const multiline = 'const page = `a\nb\n`;\nconst s = "unterminated\n/* x\n*/ fetch(y);';
    expect(scanSource(multiline, 'g.ts')).toEqual([{ file: 'g.ts', line: 6, rule: 'calls the global fetch' }]);
  });
});

describe('outbound traffic has one way out', () => {
  it('no file under src/ outside src/gateway/ reaches the network by itself', () => {
    const src = join(root, 'src');
    const files = sourceFiles(src).filter((file) => !relative(src, file).startsWith(`gateway${'/'}`));
    expect(files.length).toBeGreaterThan(10);
    const violations = files.flatMap((file) => scanSource(readFileSync(file, 'utf8'), relative(root, file)));
    expect(violations).toEqual([]);
  });

  it('the MCP client reaches HTTP servers with the gateway\'s fetch, under category mcp', () => {
    const source = readFileSync(join(root, 'src', 'mcp', 'transports.ts'), 'utf8');
    expect(source).toMatch(/new StreamableHTTPClientTransport\(/);
    expect(source).toMatch(/category: 'mcp'/);
    expect(scanSource(source, 'src/mcp/transports.ts')).toEqual([]);
  });

  it('the Discord REST client sends through the gateway\'s fetch, under category discord', () => {
    const rest = readFileSync(join(root, 'src', 'channels', 'discord', 'rest.ts'), 'utf8');
    expect(rest).toMatch(/new REST\(\{[\s\S]*makeRequest:/);
    expect(scanSource(rest, 'src/channels/discord/rest.ts')).toEqual([]);
    expect(readFileSync(join(root, 'src', 'app', 'discord.ts'), 'utf8')).toMatch(/gateway\.client\(\{ category: 'discord' \}\)/);
  });

  it('the gateway itself is where the outbound code lives', () => {
    const gatewayFiles = sourceFiles(join(root, 'src', 'gateway'));
    const found = gatewayFiles.flatMap((file) => scanSource(readFileSync(file, 'utf8'), relative(root, file)));
    expect(found.some((v) => v.rule === 'imports undici')).toBe(true);
  });
});
