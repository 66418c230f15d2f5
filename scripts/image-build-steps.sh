#!/bin/sh
# The npm steps of the container image, one stage per argument; the Dockerfile runs them, and
# test/deploy/image.test.ts runs the Dockerfile's steps on a clean checkout where no Docker
# daemon is at hand (CI).
#   dependencies  every dependency, to compile with (build stage)
#   build         the service compiled to build/ (build stage)
#   runtime       production dependencies only (final image)
set -eu
case "${1:-}" in
  dependencies) npm ci --no-audit --no-fund ;;
  build) npm run build ;;
  runtime) npm ci --omit=dev --no-audit --no-fund --prefer-offline ;;
  *)
    echo "usage: $0 dependencies|build|runtime" >&2
    exit 2
    ;;
esac
