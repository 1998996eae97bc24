import type { Hono } from 'hono';

/** Serves the dashboard at `/` (skeleton). */
export function mountDashboard(_app: Hono): void {}
