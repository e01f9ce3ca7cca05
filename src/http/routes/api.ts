import { approvalRoutes } from './approvals.js';
import { auditRoutes } from './audit.js';
import { chatRoutes } from './chat.js';
import type { RoutePlugin } from './context.js';
import { controlRoutes } from './controls.js';
import { costRoutes } from './costs.js';
import { diagnosticsRoutes } from './diagnostics.js';
import { memoryRoutes } from './memory.js';
import { catalogRoutes } from './providers.js';
import { runEventRoutes } from './run-events.js';
import { runRoutes } from './runs.js';
import { schedulerRoutes } from './scheduler.js';
import { sessionRoutes } from './sessions.js';
import { systemRoutes } from './system.js';

/** The REST API: one plugin, registered under `API_PREFIX`; the paths of its routes are relative to it. */
export const apiRoutes: RoutePlugin = async (app, { context }) => {
  systemRoutes(app, context);
  diagnosticsRoutes(app, context);
  catalogRoutes(app, context);
  sessionRoutes(app, context);
  chatRoutes(app, context);
  runRoutes(app, context);
  runEventRoutes(app, context);
  costRoutes(app, context);
  memoryRoutes(app, context);
  schedulerRoutes(app, context);
  controlRoutes(app, context);
  approvalRoutes(app, context);
  auditRoutes(app, context);
};
