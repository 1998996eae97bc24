#!/usr/bin/env bash
# `npm run test:cluster [-- CMD...]`: a real Temporal cluster without Docker — Debian's PostgreSQL
# and the Temporal server built from its Go module — set up with the project's own deploy scripts
# (deploy/temporal/setup-schema.sh, setup-namespace.sh, dynamicconfig.yaml), then CMD against it
# (default: the integration suite) with DURABLE_AGENTS_TEST_SERVER pointing at it. Everything
# listens on loopback and is torn down at exit. Binaries are cached under .tools/temporal-server.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

server_version="v1.32.0"
bin_dir="$root/.tools/temporal-server/$server_version/bin"
pg_port="${CLUSTER_PG_PORT:-55432}"
frontend_port="${CLUSTER_FRONTEND_PORT:-17233}"
pg_password="temporal-test"
work="$(mktemp -d /tmp/durable-agents-cluster.XXXXXX)"
chmod 755 "$work"
pids=()

log() { echo "== cluster: $*" >&2; }
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -n "${pg_ctl:-}" ] && as_postgres "$pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# PostgreSQL refuses to run as root: run it as the `postgres` user when we are root.
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# 1. Binaries: the Temporal server and its SQL schema tool, built once from the pinned module.
if [ ! -x "$bin_dir/server" ] || [ ! -x "$bin_dir/sql" ]; then
  command -v go >/dev/null || { echo "test:cluster needs Go to build the Temporal server (go.temporal.io/server@$server_version)" >&2; exit 1; }
  log "building the Temporal server $server_version from the Go module proxy (about 10 minutes, once)"
  GOBIN="$bin_dir" GOFLAGS=-mod=mod go install "go.temporal.io/server/cmd/server@$server_version" "go.temporal.io/server/cmd/tools/sql@$server_version"
fi
module_dir="$(GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' "go.temporal.io/server@$server_version" 2>/dev/null || true)"
[ -d "$module_dir/schema/postgresql/v12" ] || { echo "the schema of go.temporal.io/server@$server_version is not in the Go module cache (go mod download go.temporal.io/server@$server_version)" >&2; exit 1; }

# 2. PostgreSQL from Debian's packages, in a throwaway data directory.
if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  log "installing Debian's postgresql"
  apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
fi
pg_bin="$(dirname "$(ls /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)")"
pg_ctl="$pg_bin/pg_ctl"
mkdir -p "$work/pg" "$work/sock"
[ "$(id -u)" = 0 ] && chown postgres "$work/pg" "$work/sock"
as_postgres "$pg_bin/initdb" -D "$work/pg" -U postgres -A trust >/dev/null
as_postgres "$pg_ctl" -D "$work/pg" -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $work/sock -c max_connections=200" -w -l "$work/pg/log" start >/dev/null
as_postgres "$pg_bin/psql" -h "$work/sock" -p "$pg_port" -U postgres -qc "CREATE ROLE temporal LOGIN SUPERUSER PASSWORD '$pg_password'"
log "PostgreSQL $(basename "$(dirname "$pg_bin")") on 127.0.0.1:$pg_port"

# 3. Schema, with the project's own setup script (as docker-compose runs it).
mkdir -p "$work/bin"
ln -s "$bin_dir/sql" "$work/bin/temporal-sql-tool"
PATH="$work/bin:$PATH" POSTGRES_SEEDS=127.0.0.1 DB_PORT="$pg_port" POSTGRES_USER=temporal SQL_PASSWORD="$pg_password" \
  SCHEMA_ROOT="$module_dir/schema/postgresql/v12" sh deploy/temporal/setup-schema.sh >"$work/schema.log" 2>&1 || { cat "$work/schema.log" >&2; exit 1; }

# 4. The server, all services in one process, with the dynamic config of docker-compose.
sed -e "s#@PG_PORT@#$pg_port#g" -e "s#@PG_PASSWORD@#$pg_password#g" \
  -e "s#@FRONTEND_PORT@#$frontend_port#g" -e "s#@HTTP_PORT@#$((frontend_port + 10))#g" \
  -e "s#@HISTORY_PORT@#$((frontend_port + 1))#g" -e "s#@MATCHING_PORT@#$((frontend_port + 2))#g" \
  -e "s#@WORKER_PORT@#$((frontend_port + 6))#g" -e "s#@DYNAMIC_CONFIG@#$root/deploy/temporal/dynamicconfig.yaml#g" \
  scripts/cluster/temporal-server.yaml >"$work/cluster.yaml"
"$bin_dir/server" validate-dynamic-config deploy/temporal/dynamicconfig.yaml >&2
"$bin_dir/server" --config-file "$work/cluster.yaml" --allow-no-auth start >"$work/server.log" 2>&1 &
pids+=($!)
echo "$!" >"$work/server.pid"
log "Temporal server $server_version on 127.0.0.1:$frontend_port (log: $work/server.log)"

# 5. Namespace and search attributes, with the project's own script and the official CLI.
cli="${TEMPORAL_CLI_PATH:-}"
[ -n "$cli" ] || cli="$(command -v temporal || true)"
[ -n "$cli" ] || cli="$root/.tools/temporal/bin/temporal"
[ -x "$cli" ] || { echo "no temporal CLI: run npm run provision" >&2; exit 1; }
mkdir -p "$work/cli" && ln -sf "$cli" "$work/cli/temporal"
PATH="$work/cli:$PATH" TEMPORAL_ADDRESS="127.0.0.1:$frontend_port" TEMPORAL_NAMESPACE=default sh deploy/temporal/setup-namespace.sh >&2 || { tail -50 "$work/server.log" >&2; exit 1; }

export DURABLE_AGENTS_TEST_SERVER="127.0.0.1:$frontend_port"
export DURABLE_AGENTS_CLUSTER_SERVER_PID_FILE="$work/server.pid"
log "running: ${*:-jest --selectProjects integration --runInBand}"
if [ "$#" -gt 0 ]; then "$@"; else npx jest --selectProjects integration --runInBand; fi
