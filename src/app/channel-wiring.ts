import type { AgentRuntime } from '../agent/runtime.js';
import type { Gateway } from '../gateway/index.js';
import type { ServiceCore } from './core.js';
import type { LifecyclePart } from './lifecycle.js';

/** What each channel (webhook, Discord) is wired with. */
export interface ChannelsInput extends ServiceCore {
  agent: AgentRuntime;
  gateway: Gateway;
  env: NodeJS.ProcessEnv;
  /** The service's base URL once listening (the console's address, linked from Discord). */
  consoleUrl(): string;
}

/**
 * Two parts, far apart in the stop order: the channel stops taking messages first of all, and its
 * stop is waited for only once the runs in flight have ended (their terminal events stored and
 * sent), before the REST listener and the database close.
 */
export function channelParts(name: string, start: () => Promise<void>, stop: () => Promise<void>): { intake: LifecyclePart; drained: LifecyclePart } {
  let stopped: Promise<void> | undefined;
  return {
    intake: {
      name,
      phase: 'listen',
      start,
      stop: () => {
        stopped = stop();
      },
    },
    drained: { name: `${name} drained`, stop: () => stopped },
  };
}
