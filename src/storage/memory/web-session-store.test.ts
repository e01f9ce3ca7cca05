import { describeWebSessionStore } from '../contract/web-session-store.js';
import { InMemoryWebSessionStore } from './web-session-store.js';

describeWebSessionStore('memory', async (options) => ({ store: new InMemoryWebSessionStore(options), close: async () => {} }));
