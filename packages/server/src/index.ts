export { loadConfig, ConfigError, type Config } from './config.js';
export { type Composition, createServices, type Services } from './composition/index.js';
export { buildApp } from './http/app.js';
export { startServer, type RunningServer } from './server.js';
