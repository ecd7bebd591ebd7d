export * from './userOperation.js';
export { evenHexBytes, keccak256, keccakReady } from './keccak.js';
export * from './account.js';
export * from './anvil.js';
export * from './deploy.js';
export * from './slotSale.js';
export * from './generated/index.js';
