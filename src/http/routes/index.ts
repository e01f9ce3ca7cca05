export { apiRoutes } from './api.js';
export { isLoginForm, webRoutes, WEB_PUBLIC_PATHS } from './login.js';
export { API_PREFIX, type RouteContext, type StatusSnapshot } from './context.js';
