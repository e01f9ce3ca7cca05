/**
 * Named bundles of `allowed_hosts` entries, so that a common setup needs one word in the config
 * instead of a list the operator has to keep up to date. A preset adds to the general list (every
 * category), exactly as if its hosts were written under `allowed_hosts`.
 */
export const NETWORK_PRESETS: Readonly<Record<string, readonly string[]>> = {
  anthropic: ['api.anthropic.com'],
  openai: ['api.openai.com'],
  // A local Ollama server: only its default port, so the preset does not open the whole machine.
  ollama: ['127.0.0.1:11434', 'localhost:11434'],
  github: ['github.com', 'api.github.com', 'raw.githubusercontent.com', 'codeload.github.com', 'uploads.github.com'],
  discord: ['discord.com', 'gateway.discord.gg', 'cdn.discordapp.com', 'media.discordapp.net'],
};
