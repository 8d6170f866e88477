# syntax=docker/dockerfile:1
# Production image: built in one stage (devDependencies: TypeScript, Prisma's generator, esbuild),
# run from another that holds only dist/, the migrations and the production dependencies.
#   docker build -t tunnel-service .
#   docker run -p 4000:4000 -e DATABASE_URL=... -e REDIS_URL=... -e ENCRYPTION_KEY=... tunnel-service
# The migration-only command (Kubernetes Job, compose one-off): node dist/migrate.js
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY schema.prisma prisma.config.ts ./
# postinstall generates the Prisma client into src/generated.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
# A plain dist/ directory (no concurrent starts in an image; scripts/build.mjs).
ENV BUILD_LAYOUT=directory
RUN npm run build

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV NODE_ENV=production
# argon2 is compiled here rather than trusting its prebuilt binary on every CPU; the compilers
# stay in this stage.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# No other install scripts: the generated Prisma client is already compiled into dist/.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm rebuild argon2 --build-from-source \
  && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# glibc's allocator as `npm start` sets it (scripts/allocator.sh, ADR 26). On nodes whose kernel
# grants no transparent huge pages, set MALLOC_MMAP_THRESHOLD_=33554432: the server says so at start.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/tmp/tunnel-service \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=4194304 \
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1
WORKDIR /app
COPY --from=prod-deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root migrations ./migrations
COPY --chown=root:root package.json ./
# The image's files belong to root and are read-only to the app; it runs as the unprivileged
# `node` user (uid 1000) and writes only to DATA_DIR (a tmpfs/emptyDir in Kubernetes).
USER node
EXPOSE 4000
# Liveness: the process answers. No curl in slim images, so node asks.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# src/server.ts (loaded by dist/main.js) drains on SIGTERM: stops accepting, finishes in-flight requests, closes the pools.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
