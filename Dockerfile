# Worker image of durable-agents: runs the `npm run worker` script (the watchlist example's worker,
# examples/watchlist/worker.ts under tsx), the same entry point as in development. Your own image
# runs your own worker module the same way. Configured at run time by TEMPORAL_* and OPENAI_* variables;
# docker-compose.yml sets them. No secret is baked into the image.
#
#   docker build -t durable-agents-worker .
#   docker run --rm --init -e TEMPORAL_ADDRESS=host.docker.internal:7233 -e OPENAI_API_KEY durable-agents-worker
ARG NODE_IMAGE=node:20.20.2-slim
FROM ${NODE_IMAGE}

ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

WORKDIR /app

# Dependencies first, so that editing the sources reuses this layer. devDependencies are kept on
# purpose: tsx (a devDependency) runs the worker. The lockfile carries the linux-x64 and
# linux-arm64 native packages (@swc/core, esbuild; @temporalio/core-bridge ships both).
COPY package.json package-lock.json ./
RUN npm ci && npm cache clean --force

COPY . .

# Run as the image's unprivileged `node` user (1000:1000). Files stay root-owned and read-only
# for the process; tsx caches in /tmp.
USER 1000:1000

# This is package.json's `worker` script (`tsx examples/watchlist/worker.ts`), started without npm: `npm run`
# exits on SIGTERM without passing it on, so `docker stop` would kill the worker mid-task. tsx
# passes SIGTERM to the worker, which drains in-flight tasks and exits. Run the image with an init
# (compose `init: true`, `docker run --init`) so that tsx is not PID 1.
CMD ["node_modules/.bin/tsx", "examples/watchlist/worker.ts"]
