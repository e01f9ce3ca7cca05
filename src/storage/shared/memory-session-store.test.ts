import { describeSessionStore } from '../contract/session-store.js';
import { InMemorySessionStore } from './memory-session-store.js';

describeSessionStore('memory', async (options) => ({ store: new InMemorySessionStore(options), close: async () => {} }));
