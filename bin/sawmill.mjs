#!/usr/bin/env node
// The package's command: the CLI is TypeScript run through tsx, as the service itself is.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
