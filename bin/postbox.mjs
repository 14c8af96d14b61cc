#!/usr/bin/env node
// The `postbox` command: TypeScript run through tsx, as `npm start` runs the service.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
