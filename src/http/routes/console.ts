import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** The console is built into console/dist (committed), so `npm start` serves it as is. */
const DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

/**
 * The page may load only its own scripts and talk only to this service. Inline styles are
 * allowed because the editor and the chart library set element styles at run time.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // The page holds a key in its session: it must never be cached by a shared cache.
  'cache-control': 'no-store',
};

export default async function consoleRoutes(app: FastifyInstance) {
  const built = existsSync(`${DIST}index.html`);
  // Small and fixed for the life of the process: read once.
  const indexHtml = built ? readFileSync(`${DIST}index.html`) : undefined;
  const page = (reply: FastifyReply) => {
    if (!indexHtml) {
      return reply.status(503).send({ error: { code: 'console_not_built', message: 'the console is not built: run npm run build:console' } });
    }
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(indexHtml);
  };

  if (built) {
    // Asset names carry a hash of their content, so browsers may keep them for good.
    await app.register(fastifyStatic, {
      root: DIST,
      prefix: '/console/',
      index: false,
      immutable: true,
      maxAge: '365d',
      decorateReply: false,
      // The page itself is only served by the routes below, with its security headers and no caching.
      allowedPath: (pathName) => !pathName.endsWith('index.html'),
    });
  }
  app.get('/', (_request, reply) => page(reply));
  app.get('/console', (_request, reply) => page(reply));
  app.get('/console/', (_request, reply) => page(reply));
}
