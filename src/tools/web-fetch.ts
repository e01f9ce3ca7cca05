import { findGatewayError, headerValue, type GatewayClientFactory } from '../contracts/gateway-port.js';
import { htmlToText } from './html-text.js';
import type { ToolDefinition } from './types.js';

export interface WebFetchOptions {
  clientFactory: GatewayClientFactory;
  /** The gateway aborts the read past this many bytes (ResponseTooLargeError). */
  maxResponseBytes?: number;
  /** Text handed to the model is cut here; a page rarely needs more and tokens cost money. */
  maxOutputChars?: number;
  timeoutMs?: number;
}

const TEXT_TYPES = new Set([
  'application/json', 'application/xml', 'application/xhtml+xml', 'application/javascript', 'application/ecmascript',
  'application/x-yaml', 'application/yaml', 'application/toml', 'application/x-ndjson', 'application/csv',
]);

function isTextType(mediaType: string): boolean {
  return mediaType.startsWith('text/') || TEXT_TYPES.has(mediaType) || mediaType.endsWith('+json') || mediaType.endsWith('+xml');
}

function decode(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/**
 * Fetches a web page as text for the model. Every request goes through the gateway with category
 * `tool`, so `network.tool_allowed_hosts` and the REST rules decide what the model may reach; a
 * redirect is reported, not followed, so the next hop gets its own policy check.
 */
export function createWebFetchTool(options: WebFetchOptions): ToolDefinition {
  const maxBytes = options.maxResponseBytes ?? 1_000_000;
  const maxChars = options.maxOutputChars ?? 20_000;
  const timeout = options.timeoutMs ?? 15_000;
  return {
    name: 'web_fetch',
    description:
      'Fetch a web page or text document over HTTP(S) with GET and return its text (HTML is reduced to plain text). ' +
      `Only text content is returned, at most ${maxChars} characters. Hosts must be allowed by the operator's network policy.`,
    schema: {
      type: 'object',
      properties: {
        url: { type: 'string', description: 'Absolute http:// or https:// URL to fetch.', maxLength: 8192 },
      },
      required: ['url'],
      additionalProperties: false,
    },
    async run(args, context) {
      const url = String(args.url).trim();
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new Error(`invalid URL '${url.slice(0, 200)}': give an absolute http:// or https:// URL`);
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        throw new Error(`unsupported URL scheme '${parsed.protocol}': only http and https can be fetched`);
      }
      const client = options.clientFactory({
        sessionId: context.sessionId,
        taskId: context.runId ?? null,
        requestId: context.requestId,
        category: 'tool',
        timeout,
        maxResponseBytes: maxBytes,
      });
      try {
        const response = await client.get(parsed.href, {
          signal: context.signal,
          headers: { accept: 'text/html, text/plain, application/json, application/xml;q=0.9, text/*;q=0.8' },
        });
        return await describe(parsed.href, response, maxBytes, maxChars);
      } catch (err) {
        throw explain(err, parsed, maxBytes, context.signal.aborted);
      } finally {
        await client.close();
      }
    },
  };
}

async function describe(
  url: string,
  response: Awaited<ReturnType<ReturnType<GatewayClientFactory>['get']>>,
  maxBytes: number,
  maxChars: number,
): Promise<string> {
  const status = response.status;
  if (status >= 300 && status < 400) {
    const location = headerValue(response.headers, 'location');
    throw new Error(
      location
        ? `${url} redirected (HTTP ${status}) to ${new URL(location, url).href}; call web_fetch with that URL to follow it`
        : `${url} answered with a redirect (HTTP ${status}) without a Location`,
    );
  }
  if (status < 200 || status >= 300) throw new Error(`${url} answered HTTP ${status}`);

  const contentType = headerValue(response.headers, 'content-type') ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (mediaType && !isTextType(mediaType)) {
    throw new Error(`${url} returned non-text content (${mediaType}); web_fetch only reads text`);
  }
  const bytes = await response.bytes();
  if (bytes.byteLength > maxBytes) throw new Error(`${url} returned more than ${maxBytes} bytes`);
  // Without a declared type, refuse what looks binary rather than feed the model garbage.
  if (!mediaType && bytes.subarray(0, 1024).includes(0)) {
    throw new Error(`${url} returned binary content without a content type; web_fetch only reads text`);
  }
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  const raw = decode(bytes, charset);
  const text = mediaType === 'text/html' || mediaType === 'application/xhtml+xml' ? htmlToText(raw) : raw;
  const body = text.length > maxChars ? `${text.slice(0, maxChars)}\n[truncated: ${text.length - maxChars} more characters]` : text;
  return `url: ${url}\nstatus: ${status}\ncontent_type: ${mediaType || 'unknown'}\n\n${body}`;
}

function explain(err: unknown, url: URL, maxBytes: number, cancelled: boolean): Error {
  const gatewayError = findGatewayError(err);
  if (gatewayError?.kind === 'policy') {
    return new Error(
      `blocked by network policy: ${gatewayError.reason}. ` +
        'An operator can allow the host with network.tool_allowed_hosts or network.allowed_domains.',
    );
  }
  if (gatewayError?.kind === 'too_large') return new Error(`${url.href} is larger than the ${maxBytes}-byte limit`);
  if (gatewayError?.kind === 'invalid_url') return new Error(`invalid URL: ${gatewayError.error.message}`);
  if (gatewayError?.kind === 'timeout' || cancelled) {
    return new Error(`fetching ${url.href} was cancelled or timed out`);
  }
  return err instanceof Error ? err : new Error(String(err));
}
