#!/usr/bin/env bash
# `npm run test:package`: proves the published package works for a user outside this repository.
# Packs durable-agents, installs the tarball (plus zod, and typescript / jest / @types/node as any
# TypeScript project has) into a fresh project under a temp directory, builds that project's own
# agent (a tool that needs approval, a planner written as code), starts a throwaway dev server on
# a non-default port, runs the project's worker, and a client script that serves the library's
# HTTP API and dashboard (durable-agents/server), starts a run, approves the call over HTTP and
# reads the result; then the project's jest test replays the captured history and
# catches a deliberately reordered tool call.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/durable-agents-package-XXXXXX")"
port="${PACKAGE_TEST_PORT:-17655}"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The project's dev server uses the CLI this repository provisioned (npm run provision), if any.
if [ -z "${TEMPORAL_CLI_PATH:-}" ] && [ -x "$repo/.tools/temporal/bin/temporal" ]; then export TEMPORAL_CLI_PATH="$repo/.tools/temporal/bin/temporal"; fi

version_of() { node -p "require('$repo/node_modules/$1/package.json').version"; }

echo "== npm pack"
(cd "$repo" && npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/durable-agents-*.tgz)"
echo "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KiB)"

echo "== a fresh project in $work/project"
cp -r "$repo/test/package/project" "$work/project"
cd "$work/project"
npm install --no-audit --no-fund --loglevel=error "$tarball" "zod@$(version_of zod)" \
  "typescript@$(version_of typescript)" "@types/node@$(version_of @types/node)" "jest@$(version_of jest)" >/dev/null
test ! -e node_modules/durable-agents/workflows/index.ts || { echo "the package ships TypeScript sources"; exit 1; }
# Workflow bundles must take the ES-module copy (module concatenation), not the CommonJS one.
node -e 'const s = require("./node_modules/durable-agents/dist/worker/workflow-sources.js"); if (!/dist[\\/]esm[\\/]workflows$/.test(s.workflowSourceDir)) { console.error(`workflow bundles would use ${s.workflowSourceDir}, not dist/esm/workflows`); process.exit(1); }'
npm run --silent build

echo "== dev server on 127.0.0.1:$port, the project's worker, its client script"
export TEMPORAL_ADDRESS="127.0.0.1:$port" TEMPORAL_TASK_QUEUE=notes NOTES_FILE="$work/project/notes.jsonl"
PORT="$port" node dist/server.js >server.log 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do grep -q '^ready' server.log && break; sleep 0.5; done
grep -q '^ready' server.log || { cat server.log; echo "dev server did not start"; exit 1; }
node dist/worker.js >worker.log 2>&1 &
pids+=($!)
mkdir -p histories
timeout 120 node dist/client.js histories/notes.json || { cat worker.log; exit 1; }
effects="$(wc -l <notes.jsonl)"
[ "$effects" -eq 1 ] || { echo "add_note ran $effects times, expected once"; exit 1; }

echo "== the project's own replay test"
HISTORY_FILE=histories/notes.json npx jest --ci --testTimeout 120000 test 2>&1
echo "package test passed"
