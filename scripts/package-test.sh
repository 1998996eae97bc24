#!/usr/bin/env bash
# `npm run test:package`: proves the published package works for a user outside this repository.
# Packs durable-agents, installs the tarball (plus zod, and typescript / jest / @types/node as any
# TypeScript project has) into a fresh project under a temp directory, builds that project's own
# agent (a tool that needs approval, a planner written as code), starts a throwaway dev server on
# a non-default port, runs the project's worker, and a client script that serves the library's
# HTTP API and dashboard (durable-agents/server), starts a run, approves the call over HTTP and
# reads the result; then the project's jest test replays the captured history and
# catches a deliberately reordered tool call, agentctl replays it against a workflow bundle built
# once and evaluates the agent on it (as it is, from that bundle; reordered, from its module). Last, the README's "Build your own agent" section
# runs as written: its files and commands (test/package/readme-project.ts reads them from the
# README) with an LLM agent against the library's fake model server.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/durable-agents-package-XXXXXX")"
port="${PACKAGE_TEST_PORT:-17655}"
pids=()
groups=() # process groups (setsid): npx -> tsx -> node -> temporal
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for group in "${groups[@]}"; do kill -- "-$group" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The project's dev server uses the CLI this repository provisioned (npm run provision), if any.
if [ -z "${TEMPORAL_CLI_PATH:-}" ] && [ -x "$repo/.tools/temporal/bin/temporal" ]; then export TEMPORAL_CLI_PATH="$repo/.tools/temporal/bin/temporal"; fi

version_of() { node -p "require('$repo/node_modules/$1/package.json').version"; }

# Waits until the worker logging to $1 polls its task queue (the SDK logs its state RUNNING), as a
# user starts a client once the worker is up: the client scripts follow their runs, and a query no
# worker answers gives up after 35 s, while on a busy machine bundling the workflows alone has
# taken 26 s.
await_worker() {
  for _ in $(seq 1 360); do grep -q "state: 'RUNNING'" "$1" 2>/dev/null && return 0; sleep 0.5; done
  cat "$1"; echo "the worker did not start within 180 s"; return 1
}

# Each step's heading says when it began (seconds into the test), for finding where its time goes.
step() { echo "== $1 (at ${SECONDS} s)"; }

step "npm pack"
(cd "$repo" && npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/durable-agents-*.tgz)"
echo "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KiB)"

step "a fresh project in $work/project"
cp -r "$repo/test/package/project" "$work/project"
cd "$work/project"
npm install --no-audit --no-fund --loglevel=error "$tarball" "zod@$(version_of zod)" \
  "typescript@$(version_of typescript)" "@types/node@$(version_of @types/node)" "jest@$(version_of jest)" "tsx@$(version_of tsx)" >/dev/null
test ! -e node_modules/durable-agents/workflows/index.ts || { echo "the package ships TypeScript sources"; exit 1; }
# Workflow bundles must take the ES-module copy (module concatenation), not the CommonJS one.
node -e 'const s = require("./node_modules/durable-agents/dist/worker/workflow-sources.js"); if (!/dist[\\/]esm[\\/]workflows$/.test(s.workflowSourceDir)) { console.error(`workflow bundles would use ${s.workflowSourceDir}, not dist/esm/workflows`); process.exit(1); }'
# A client loads no native module: a web backend that only starts runs does not pay for the worker's core bridge.
node -e 'for (const entry of ["client", "protocol"]) require(`durable-agents/${entry}`); const native = Object.keys(require.cache).filter((p) => /[\\/]@temporalio[\\/](worker|core-bridge)[\\/]|\.node$/.test(p)); if (native.length) { console.error(`durable-agents/client or /protocol loads native modules: ${native.join(", ")}`); process.exit(1); }'
npm run --silent build

step "dev server on 127.0.0.1:$port, the project's worker, its client script"
export TEMPORAL_ADDRESS="127.0.0.1:$port" TEMPORAL_TASK_QUEUE=notes NOTES_FILE="$work/project/notes.jsonl"
PORT="$port" node dist/server.js >server.log 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do grep -q '^ready' server.log && break; sleep 0.5; done
grep -q '^ready' server.log || { cat server.log; echo "dev server did not start"; exit 1; }
node dist/worker.js >worker.log 2>&1 &
pids+=($!)
await_worker worker.log
mkdir -p histories
timeout 120 node dist/client.js histories/notes.json || { cat worker.log; exit 1; }
effects="$(wc -l <notes.jsonl)"
[ "$effects" -eq 1 ] || { echo "add_note ran $effects times, expected once"; exit 1; }

step "the project's own replay test"
HISTORY_FILE=histories/notes.json npx jest --ci --testTimeout 120000 test 2>&1

step "a workflow bundle built once (bundleAgentWorkflows), replayed and evaluated as it is (--workflow-bundle)"
node -e 'require("durable-agents/worker").bundleAgentWorkflows(require.resolve("./dist/workflows")).then(({ code }) => require("fs").writeFileSync("workflow-bundle.js", code))'
npx agentctl replay histories/notes.json --workflow-bundle workflow-bundle.js >replay.log 2>&1 || { cat replay.log; echo "agentctl replay of the recorded run against the bundle failed"; exit 1; }
grep -q '^replayed [0-9]* events: deterministic$' replay.log || { cat replay.log; echo "agentctl replay against the bundle did not say deterministic"; exit 1; }

step "agentctl eval of the recorded run: the agent as it is passes its gates, a reordered one fails"
eval_args=(--agent-module dist/agent.js --address "$TEMPORAL_ADDRESS")
npx agentctl eval histories/notes.json --workflow-bundle workflow-bundle.js "${eval_args[@]}" --gate no-divergence --gate no-unrecorded-calls >eval.log 2>&1 ||
  { cat eval.log; echo "agentctl eval of the unchanged agent failed"; exit 1; }
cat eval.log
code=0
npx agentctl eval histories/notes.json --workflows dist/workflows-reordered.js "${eval_args[@]}" --gate no-tool-divergence >eval-reordered.log 2>&1 || code=$?
[ "$code" -eq 8 ] || { cat eval-reordered.log; echo "agentctl eval of the reordered agent exited $code, expected 8 (a failed gate)"; exit 1; }
grep -q 'gate no-tool-divergence failed: histories/notes.json: chose other tools at turn 0: add_note' eval-reordered.log ||
  { cat eval-reordered.log; echo "the failed gate does not name the run and its turn"; exit 1; }
[ "$(wc -l <notes.jsonl)" -eq 1 ] || { echo "an evaluation ran add_note"; exit 1; }
kill "${pids[@]}" 2>/dev/null || true

step "the README's \"Build your own agent\", as written"
readme_started=$SECONDS
readme_project() { (cd "$repo" && npx tsx test/package/readme-project.ts "$@"); }
mapfile -t commands < <(readme_project commands README.md)
unset TEMPORAL_TASK_QUEUE NOTES_FILE OPENAI_API_KEY OPENAI_BASE_URL
export TEMPORAL_ADDRESS="127.0.0.1:$((port + 1))"
cd "$work"
ran=0
for command in "${commands[@]}"; do
  echo "\$ $command"
  ran=$((ran + 1))
  case "$command" in
    "mkdir notes-agent && cd notes-agent && npm init -y") eval "$command" >/dev/null ;;
    # The registry's durable-agents is not this build: the project gets the packages installed above.
    "npm install durable-agents zod && npm install --save-dev tsx") ln -s "$work/project/node_modules" node_modules ;;
    "mkdir -p src test/histories") eval "$command" && readme_project files README.md "$PWD" ;;
    "npx tsx src/dev.ts")
      setsid $command >dev.log 2>dev.err </dev/null &
      groups+=($!)
      for _ in $(seq 1 120); do grep -q '^OPENAI_BASE_URL=' dev.log && break; sleep 0.5; done
      grep -q '^OPENAI_BASE_URL=' dev.log || { cat dev.log dev.err; echo "src/dev.ts did not print OPENAI_BASE_URL"; exit 1; } ;;
    "OPENAI_BASE_URL=http://127.0.0.1:<port>/v1 npx tsx src/worker.ts")
      model_port="$(sed -n 's#^OPENAI_BASE_URL=http://127.0.0.1:\([0-9]*\)/v1$#\1#p' dev.log)"
      setsid bash -c "${command/<port>/$model_port}" >worker.log 2>&1 </dev/null &
      groups+=($!)
      await_worker worker.log ;;
    "npx tsx src/client.ts")
      timeout 120 $command >client.log 2>&1 </dev/null || { cat client.log worker.log dev.err; exit 1; }
      cat client.log
      grep -qx 'Saved: milk.' client.log || { echo 'the client did not print "Saved: milk."'; exit 1; }
      [ "$(wc -l <notes.jsonl)" -eq 1 ] || { echo "add_note did not run exactly once"; exit 1; } ;;
    "npx tsx --test test/replay.test.ts") timeout 120 $command </dev/null ;;
    *) echo "the package test does not know this README command; teach scripts/package-test.sh to run it"; exit 1 ;;
  esac
done
[ "$ran" -eq 7 ] || { echo "the README's section has $ran commands, the package test runs 7; update scripts/package-test.sh"; exit 1; }
typecheck="npx tsc --noEmit --strict --skipLibCheck --module node16 --target es2022 --types node src/*.ts test/*.ts"
grep -qF "\`$typecheck\`" "$repo/README.md" || { echo "the README's type-check line changed; update scripts/package-test.sh"; exit 1; }
echo "\$ $typecheck"
$typecheck
echo "the README's section ran in $((SECONDS - readme_started)) s"
echo "package test passed (${SECONDS} s)"
