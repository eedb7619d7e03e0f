#!/usr/bin/env bash
# Makes sure the stores and tools the test suite needs are here, then runs a command with them.
#
#   bash scripts/test-env.sh [command [args...]]
#
# `npm test` runs `bash scripts/test-env.sh npm run test:all`. Without a command the script
# prints `export PG_QUEUE_DATABASE=...` and `export REDIS_URL=...` lines for `eval` (.ci/run).
# Progress goes to stderr: one line per store when all is up.
#
# For each store:
# - PG_QUEUE_DATABASE / REDIS_URL set: use it, and wait for it to answer.
# - Unset: use a local server on 127.0.0.1 (ports below). When nothing listens there, start the
#   installed server: PostgreSQL is the Debian cluster configured for that port (pg_lsclusters),
#   started with pg_ctlcluster; Redis is a redis-server without persistence. A server that is not
#   installed is installed first with apt-get when that is allowed (root or passwordless sudo).
#   On PostgreSQL the tests log in as user `postgres` and use the database `test`, created when
#   missing; a role without password that must give one over TCP (a fresh Debian install) is given
#   the password `postgres`, and a role with a password of its own keeps it.
# Running it again changes nothing that is up; it needs `npm install` first (it talks to the
# stores through the project's own drivers, pg and ioredis).
# The suite also needs, whatever the stores: the server binaries (some tests start private
# servers, and a Redis Cluster, from them) and Debian's chromium (the dashboard's browser test).
# They are installed when allowed; otherwise a line says what will fail or be skipped.
# Whatever cannot be done ends in one message saying what to install or set, with exit status 1.
#
# Environment:
#   PG_QUEUE_DATABASE       PostgreSQL database the tests use (default: the local one above)
#   REDIS_URL               Redis the tests use (default: the local one above)
#   QUEUEDEV_PG_PORT        port of the local PostgreSQL when PG_QUEUE_DATABASE is unset (5432)
#   QUEUEDEV_REDIS_PORT     port of the local Redis when REDIS_URL is unset (6379)
#   QUEUEDEV_INSTALL        `no` never installs packages (default `yes`: when root or with sudo)
#   QUEUEDEV_WAIT_SECONDS   how long a store may take to answer (30)
set -euo pipefail

cd "$(dirname "$0")/.."

PG_PORT=${QUEUEDEV_PG_PORT:-5432}
REDIS_PORT=${QUEUEDEV_REDIS_PORT:-6379}
INSTALL=${QUEUEDEV_INSTALL:-yes}
WAIT_SECONDS=${QUEUEDEV_WAIT_SECONDS:-30}
# Where the dashboard's browser test looks for Chromium (test/dashboard/browser.test.ts).
CHROMIUM=/usr/bin/chromium

say() { printf 'test-env: %s\n' "$*" >&2; }
fail() {
  printf 'test-env: error: %s\n' "$*" >&2
  exit 1
}

# Settings are checked before anything is done.
[[ $PG_PORT =~ ^[0-9]+$ ]] || fail "QUEUEDEV_PG_PORT must be a port number, got '$PG_PORT'"
[[ $REDIS_PORT =~ ^[0-9]+$ ]] || fail "QUEUEDEV_REDIS_PORT must be a port number, got '$REDIS_PORT'"
[[ $INSTALL =~ ^(yes|no)$ ]] || fail "QUEUEDEV_INSTALL must be 'yes' or 'no', got '$INSTALL'"
[[ $WAIT_SECONDS =~ ^[1-9][0-9]*$ ]] || fail "QUEUEDEV_WAIT_SECONDS must be a positive whole number, got '$WAIT_SECONDS'"

# The stores are probed with the project's drivers, so the URLs mean exactly what they mean to the tests.
node -e 'require.resolve("pg"); require.resolve("ioredis")' 2>/dev/null ||
  fail "the drivers pg and ioredis are not installed in $PWD: run npm install first"

# A URL as printed: its password replaced by ***.
redact() { sed -E 's#(://[^:/@]*):[^@/]*@#\1:***@#' <<<"$1"; }

have() { command -v "$1" >/dev/null 2>&1; }

# Succeeds when something accepts connections on 127.0.0.1:<port>.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pg_query <url> <sql>: runs one statement with the project's own driver (so any URL the tests
# accept works here) and prints the first value of the first row; on failure prints the driver's
# message to stderr and fails, with status 2 when the server refused the login or the database
# (waiting will not change that) and 1 otherwise (down, or still starting).
pg_query() {
  node --input-type=module -e '
    import pg from "pg";
    const [url, sql] = process.argv.slice(1);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    client.on("error", () => {});
    try {
      await client.connect();
      const { rows } = await client.query(sql);
      console.log(rows.length > 0 ? Object.values(rows[0])[0] : "");
    } catch (error) {
      console.error(error.message || String(error));
      process.exitCode = /^(28|3D)/.test(error.code ?? "") ? 2 : 1;
    } finally {
      await client.end().catch(() => {});
    }
  ' "$1" "$2"
}

# redis_ping <url>: succeeds when the Redis at <url> answers PING (with the project's driver);
# fails with status 2 when the server answered with an error (such as a wrong password).
redis_ping() {
  node -e '
    const { Redis } = require("ioredis");
    const client = new Redis(process.argv[1], {
      lazyConnect: true, connectTimeout: 5000, maxRetriesPerRequest: 0, retryStrategy: () => null,
    });
    let cause; // the connection error says more than the rejected command
    client.on("error", (error) => { cause ??= error; });
    client.connect().then(() => client.ping()).then(
      (reply) => { client.disconnect(); process.exit(reply === "PONG" ? 0 : 1); },
      (error) => {
        console.error((cause ?? error).message);
        client.disconnect();
        process.exit((cause ?? error).name === "ReplyError" ? 2 : 1);
      },
    );
  ' "$1"
}

# within <seconds> <probe...>: retries the probe once a second until it succeeds, fails with
# status 2 (an answer that waiting will not change: $refused is then true) or time is up; the
# probe's last complaint is left in $last_error.
last_error="" refused=false
within() {
  local deadline=$((SECONDS + $1))
  shift
  refused=false
  until last_error=$("$@" 2>&1 >/dev/null); do
    if [ $? -eq 2 ]; then
      refused=true
      return 1
    fi
    ((SECONDS < deadline)) || return 1
    sleep 1
  done
}

# Why packages cannot be installed here; empty when they can.
install_blocker() {
  if [ "$INSTALL" = no ]; then echo "installing packages is turned off (QUEUEDEV_INSTALL=no)"
  elif ! have apt-get; then echo "this system has no apt-get"
  elif [ "$(id -u)" -ne 0 ] && ! { have sudo && sudo -n true 2>/dev/null; }; then
    echo "installing packages needs root or passwordless sudo"
  fi
}

# Runs a command as root: directly when we are root, else through passwordless sudo.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi
}

# Runs a command as the postgres system user (the local superuser of a Debian install).
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"
  elif [ "$(id -un)" = postgres ]; then "$@"
  else sudo -n -u postgres "$@"
  fi
}

apt_updated=false
# apt_install <package...>: installs with apt-get (quietly; its output goes to stderr).
apt_install() {
  say "installing $* with apt-get"
  if ! $apt_updated; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null >&2 || return
    apt_updated=true
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" </dev/null >&2
}

pg_installed() { have pg_ctlcluster && have pg_lsclusters && have psql; }
redis_installed() { have redis-server; }

pg_url=${PG_QUEUE_DATABASE:-}
redis_url=${REDIS_URL:-}

# given_store_failed <store> <url> <variable> <local port>: the message for a store given by its
# variable that did not answer, or refused us.
given_store_failed() {
  local store=$1 url variable=$3 port=$4
  url=$(redact "$2")
  if $refused; then
    fail "$store at $url ($variable) refused the tests: $last_error. Set $variable to one the tests may use (unset, the tests use a local server on 127.0.0.1:$port)."
  fi
  fail "$store at $url ($variable) did not answer within $WAIT_SECONDS seconds: $last_error. Start that server, or set $variable to one that answers (unset, the tests use a local server on 127.0.0.1:$port)."
}

# 1. Stores given by the variables: wait for them to answer, nothing else.
if [ -n "$pg_url" ] && ! within "$WAIT_SECONDS" pg_query "$pg_url" 'SELECT 1'; then
  given_store_failed PostgreSQL "$pg_url" PG_QUEUE_DATABASE "$PG_PORT"
fi
if [ -n "$redis_url" ] && ! within "$WAIT_SECONDS" redis_ping "$redis_url"; then
  given_store_failed Redis "$redis_url" REDIS_URL "$REDIS_PORT"
fi

# 2. Local stores with nothing listening need their server installed: gather what is missing and
#    stop with one message when it may not be installed.
needed=() settable=() missing_text=()
if [ -z "$pg_url" ] && ! listening "$PG_PORT" && ! pg_installed; then
  needed+=(postgresql) settable+=("PG_QUEUE_DATABASE=postgres://USER:PASSWORD@HOST:5432/DATABASE")
  missing_text+=("nothing answers on 127.0.0.1:$PG_PORT and PostgreSQL is not installed")
fi
if [ -z "$redis_url" ] && ! listening "$REDIS_PORT" && ! redis_installed; then
  needed+=(redis-server) settable+=("REDIS_URL=redis://HOST:6379")
  missing_text+=("nothing answers on 127.0.0.1:$REDIS_PORT and Redis is not installed")
fi
blocker=$(install_blocker)
if [ ${#needed[@]} -gt 0 ] && [ -n "$blocker" ]; then
  printf -v problems '%s; ' "${missing_text[@]}"
  packages="${needed[*]}" variables="${settable[*]}"
  fail "the tests need PostgreSQL and Redis: ${problems%; }, and $blocker. Install ${packages// / and } (Debian/Ubuntu: sudo apt-get install $packages) and run the tests again, or set ${variables// / and } to use running servers."
fi

# 3. Install what is missing when allowed: the servers (needed above, or by the tests that start
#    private servers), then Chromium on its own, since not every distribution packages it.
if [ -z "$blocker" ]; then
  servers=()
  pg_installed || servers+=(postgresql)
  redis_installed || servers+=(redis-server)
  if [ ${#servers[@]} -gt 0 ]; then
    apt_install "${servers[@]}" ||
      fail "apt-get could not install ${servers[*]} (its output is above): install them yourself, or set PG_QUEUE_DATABASE and REDIS_URL to running servers."
  fi
  [ -x "$CHROMIUM" ] || apt_install chromium || say "could not install chromium"
fi
pg_installed || say "PostgreSQL is not installed: tests that start a private PostgreSQL server will fail (install postgresql)"
redis_installed || say "Redis is not installed: tests that start a private Redis server or a Redis Cluster will fail (install redis-server)"
[ -x "$CHROMIUM" ] || say "$CHROMIUM not found: the dashboard's browser test will be skipped (Debian: apt-get install chromium)"

# 4. The local PostgreSQL: start the cluster configured for the port when nothing listens there,
#    log in as postgres, create the database `test`.
if [ -z "$pg_url" ]; then
  state="answers"
  if ! listening "$PG_PORT"; then
    # Columns: version, cluster, port, status, owner, data directory, log file.
    read -r version cluster _ <<<"$(pg_lsclusters --no-header | awk -v port="$PG_PORT" '$3 == port { print $1, $2; exit }')"
    if [ -z "${version:-}" ]; then
      fail "PostgreSQL is installed but no cluster is set up for port $PG_PORT (pg_lsclusters lists none): create one with 'sudo pg_createcluster --start <version> main --port $PG_PORT', or set PG_QUEUE_DATABASE to a running server's database."
    fi
    say "starting PostgreSQL cluster $version/$cluster on port $PG_PORT"
    start=(pg_ctlcluster --skip-systemctl-redirect "$version" "$cluster" start)
    # As root (or through sudo) when we may, else as ourselves (the cluster's owner may start it);
    # outside systemd's control, so that it also works in containers without systemd.
    if [ "$(id -u)" -eq 0 ] || { have sudo && sudo -n true 2>/dev/null; }; then start=(as_root "${start[@]}"); fi
    "${start[@]}" </dev/null >&2 ||
      fail "could not start PostgreSQL cluster $version/$cluster (the reason is above): start it with 'sudo pg_ctlcluster $version $cluster start', or set PG_QUEUE_DATABASE to a running server's database."
    within "$WAIT_SECONDS" listening "$PG_PORT" ||
      fail "PostgreSQL cluster $version/$cluster did not start on port $PG_PORT within $WAIT_SECONDS seconds (see its log, pg_lsclusters names it): start it with 'sudo pg_ctlcluster $version $cluster start', or set PG_QUEUE_DATABASE to a running server's database."
    state="started"
  fi

  # The first base URL that logs in as postgres; a fresh install wants a password over TCP, and
  # is given `postgres` once, after which the second candidate logs in.
  pg_login() {
    for base in "postgres://postgres@127.0.0.1:$PG_PORT" "postgres://postgres:postgres@127.0.0.1:$PG_PORT"; do
      if last_error=$(pg_query "$base/postgres" 'SELECT 1' 2>&1 >/dev/null); then
        pg_base=$base
        return 0
      fi
    done
    return 1
  }
  # A role that has a password of its own keeps it: the tests then need PG_QUEUE_DATABASE.
  if ! pg_login; then
    set_password="ALTER ROLE postgres PASSWORD 'postgres'"
    if ! no_password=$(as_postgres psql -X -tA -p "$PG_PORT" -c "SELECT rolpassword IS NULL FROM pg_authid WHERE rolname = 'postgres'" </dev/null 2>/dev/null); then
      fail "user postgres cannot log in to PostgreSQL on 127.0.0.1:$PG_PORT ($last_error), and giving it a password needs root or passwordless sudo: run sudo -u postgres psql -p $PG_PORT -c \"$set_password\" and run the tests again, or set PG_QUEUE_DATABASE=postgres://USER:PASSWORD@127.0.0.1:$PG_PORT/test."
    fi
    if [ "$no_password" = t ]; then
      say "user postgres cannot log in over TCP without a password (as on a fresh install): setting the password 'postgres' for this machine's tests"
      as_postgres psql -X -q -p "$PG_PORT" -c "$set_password" </dev/null >&2 || true
    fi
    pg_login ||
      fail "cannot log in to PostgreSQL on 127.0.0.1:$PG_PORT as user postgres: $last_error. Set PG_QUEUE_DATABASE to a database the tests may use, e.g. postgres://USER:PASSWORD@127.0.0.1:$PG_PORT/test."
  fi

  if [ "$(pg_query "$pg_base/postgres" "SELECT count(*) FROM pg_database WHERE datname = 'test'")" != 1 ]; then
    say "creating database test"
    last_error=$(pg_query "$pg_base/postgres" 'CREATE DATABASE test' 2>&1 >/dev/null) ||
      fail "could not create the database test on 127.0.0.1:$PG_PORT: $last_error. Create it, or set PG_QUEUE_DATABASE to a database the tests may use."
  fi
  pg_url="$pg_base/test"
  say "PostgreSQL $(redact "$pg_url") $state"
else
  say "PostgreSQL $(redact "$pg_url") answers (PG_QUEUE_DATABASE)"
fi

# 5. The local Redis: start a redis-server without persistence when nothing listens there.
if [ -z "$redis_url" ]; then
  state="answers"
  redis_url="redis://127.0.0.1:$REDIS_PORT"
  if ! listening "$REDIS_PORT"; then
    say "starting redis-server on 127.0.0.1:$REDIS_PORT"
    redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
      --dir "${TMPDIR:-/tmp}" >&2 ||
      fail "redis-server could not start on 127.0.0.1:$REDIS_PORT (the reason is above): start a Redis there, or set REDIS_URL to a Redis that answers."
    state="started"
  fi
  within "$WAIT_SECONDS" redis_ping "$redis_url" ||
    fail "Redis on 127.0.0.1:$REDIS_PORT did not answer within $WAIT_SECONDS seconds: $last_error. Start it, or set REDIS_URL to a Redis that answers."
  say "Redis $redis_url $state"
else
  say "Redis $(redact "$redis_url") answers (REDIS_URL)"
fi

# 6. Run the command with the stores settled, or print them for `eval`.
export PG_QUEUE_DATABASE=$pg_url REDIS_URL=$redis_url
if [ $# -gt 0 ]; then exec "$@"; fi
printf 'export PG_QUEUE_DATABASE=%q\nexport REDIS_URL=%q\n' "$pg_url" "$redis_url"
