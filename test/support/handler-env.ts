/** Setup file: every test worker sees the functions' environment before a test file loads. */
import { inject } from 'vitest';

Object.assign(process.env, inject('gatewayEnv'));
