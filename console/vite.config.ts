import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console is served by the service itself under /console/ (see src/http/routes/console.ts).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  // Preact's automatic JSX runtime, compiled by Vite's own transformer: no framework plugin needed.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Scripts load from files only: the service's content security policy forbids inline ones.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
  },
  server: {
    // `npx vite console` during development: API calls go to a service on the default port.
    proxy: { '/api': 'http://127.0.0.1:4000', '/logs': 'http://127.0.0.1:4000' },
  },
});
