export * from './account.js';
export * from './anvil.js';
export * from './userOperation.js';
