#!/usr/bin/env node
// The package's command: the CLI, TypeScript run through tsx (`npm start` runs the service compiled).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
