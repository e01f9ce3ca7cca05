export { systemRoutes } from './system.js';
export { memoryRoutes } from './memory.js';
export { agentRoutes, type AgentRoutesContext } from './agent.js';
export { diagnosticsRoutes } from './diagnostics.js';
export { loginRoutes, WEB_PUBLIC_PATHS, type LoginRoutesContext } from './login.js';
