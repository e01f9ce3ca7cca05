export { systemRoutes } from './system.js';
export { memoryRoutes } from './memory.js';
