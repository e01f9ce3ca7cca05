import { describeWebSessionStore } from '../contract/web-session-store.js';
import { InMemoryWebSessionStore } from './memory-web-session-store.js';

describeWebSessionStore('memory', async (options) => ({ store: new InMemoryWebSessionStore(options), close: async () => {} }));
