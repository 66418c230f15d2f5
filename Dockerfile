# syntax=docker/dockerfile:1
# Sawmill's container image: the compiled service, production dependencies, the console, the
# CLI (`sawmill`), curl for Supabase's health check, a non-root user and /data as the volume.
#   docker build -t sawmill .
# Supabase's stack: deploy/supabase/docker-compose.sawmill.yml; on its own: docker-compose.yml.
# The npm steps are scripts/image-build-steps.sh, which CI also runs on a clean checkout.
# Node 22: Node 20 is past its end of life, and two of fastify's dependencies ask for 22.

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/image-build-steps.sh ./scripts/
RUN --mount=type=cache,target=/root/.npm sh scripts/image-build-steps.sh dependencies
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN sh scripts/image-build-steps.sh build

FROM node:22-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends curl \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY scripts/image-build-steps.sh ./scripts/
# npm's download cache is a build cache mount, kept out of the image.
RUN --mount=type=cache,target=/root/.npm sh scripts/image-build-steps.sh runtime
COPY --from=build /app/build ./build
# The CLI runs its TypeScript through tsx (bin/sawmill.mjs), so the sources come along.
COPY src ./src
COPY bin ./bin
COPY console/dist ./console/dist
RUN mkdir -p /data \
  && chown node:node /data \
  && ln -s /app/bin/sawmill.cjs /usr/local/bin/sawmill
USER node
ENV HOST=0.0.0.0 \
  PORT=4000 \
  SAWMILL_DATA_DIR=/data
VOLUME /data
EXPOSE 4000
HEALTHCHECK --interval=5s --timeout=5s --retries=10 CMD curl -sSfL -o /dev/null http://localhost:4000/health || exit 1
# As npm start: the compiled service, with the threadpool every start gets (bin/threadpool.cjs).
CMD ["node", "bin/service.cjs"]
