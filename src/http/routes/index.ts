export { systemRoutes } from './system.js';
