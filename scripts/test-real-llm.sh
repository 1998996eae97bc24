#!/usr/bin/env bash
# `npm run test:real-llm`: provisions llama-server and the SmolLM2 model (scripts/provision-llama-server.sh,
# cached under .tools/llama or LLAMA_TOOLS_DIR) and runs the opt-in real-model test against them.
# On a fresh cache provisioning takes about 12 minutes on 2 cores (LLAMA_BUILD_JOBS=2; mostly the
# llama-server build), the test about 30 s; with the cache, provisioning is a smoke check of seconds.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
paths="$(bash "$root/scripts/provision-llama-server.sh")"
export LLAMA_SERVER="$(printf '%s\n' "$paths" | sed -n 's/^LLAMA_SERVER=//p')"
export LLAMA_MODEL="$(printf '%s\n' "$paths" | sed -n 's/^LLAMA_MODEL=//p')"
export LLAMA_CHAT_TEMPLATE="$(printf '%s\n' "$paths" | sed -n 's/^LLAMA_CHAT_TEMPLATE=//p')"
cd "$root"
exec npx jest -c jest.real-llm.config.js --runInBand "$@"
