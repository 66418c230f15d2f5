#!/usr/bin/env node
// The package's command. CommonJS on purpose: the threadpool is sized before anything starts it
// (threadpool.cjs), so `sawmill serve` gets the same pool as npm start and the image.
require('./threadpool.cjs');
import('./sawmill.mjs');
