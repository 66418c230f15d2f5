#!/usr/bin/env node
// The service, compiled (`npm run build`), with the threadpool every start gets: npm start and the
// container image run this.
require('./threadpool.cjs');
import('../build/main.js');
