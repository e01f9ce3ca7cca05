import type { ProviderConfig } from '../config/schema.js';

/** The vendors' own APIs. Set explicitly so the SDKs never pick a base URL up from the environment. */
export const OFFICIAL_BASE_URLS = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1',
} as const;

export type HostedProviderName = keyof typeof OFFICIAL_BASE_URLS;

export function isHostedProviderName(name: string): name is HostedProviderName {
  return Object.hasOwn(OFFICIAL_BASE_URLS, name);
}

/**
 * Whether the provider talks to a server other than the vendor's own (Ollama, vLLM, llama.cpp, a
 * proxy): such a server needs no key of ours and bills nothing we can price.
 */
export function isSelfHosted(name: string, config: Pick<ProviderConfig, 'base_url'>): boolean {
  if (!config.base_url) return false;
  if (!isHostedProviderName(name)) return true;
  const official = new URL(OFFICIAL_BASE_URLS[name]).hostname;
  let host: string;
  try {
    host = new URL(config.base_url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host !== official && !host.endsWith(`.${official.split('.').slice(-2).join('.')}`);
}
