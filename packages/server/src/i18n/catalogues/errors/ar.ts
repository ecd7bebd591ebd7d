import type { Translation } from '../types.js';
import type en from './en.js';

export default {} satisfies Translation<typeof en>;
