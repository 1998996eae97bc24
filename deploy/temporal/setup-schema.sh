#!/bin/sh
# One-shot (temporalio/admin-tools): creates Temporal's two PostgreSQL databases and brings their
# schemas up to the version this admin-tools image ships. Safe to re-run on every `up`: an existing
# database is kept and applied schema versions are skipped, so it also upgrades the schema in place
# after the server and admin-tools tags are raised together.
set -eu

: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
DB_PORT="${DB_PORT:-5432}"
SCHEMA_ROOT="${SCHEMA_ROOT:-/etc/temporal/schema/postgresql/v12}"

setup() { # database, schema folder
  echo "schema setup: database $1"
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --db "$1" create
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --db "$1" setup-schema -v 0.0
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --db "$1" update-schema -d "$SCHEMA_ROOT/$2/versioned"
}

setup "${DBNAME:-temporal}" temporal
setup "${VISIBILITY_DBNAME:-temporal_visibility}" visibility
echo "schema setup: done"
