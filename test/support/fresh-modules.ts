/**
 * Setup file of a project whose files share a worker: each file starts as a new Lambda container
 * would, with the environment the worker began with and its own modules (configuration, clients
 * and handlers read the environment when they load), while what node_modules holds stays loaded.
 */
import { vi } from 'vitest';

const worker = globalThis as { workerEnvironment?: Record<string, string | undefined> };
worker.workerEnvironment ??= { ...process.env };
for (const name of Object.keys(process.env)) if (!(name in worker.workerEnvironment)) delete process.env[name];
Object.assign(process.env, worker.workerEnvironment);
vi.resetModules();
