#!/usr/bin/env bash
# Used only with docker-compose.hub.yml (the official flink image from Docker Hub): runs first in
# every Flink container, then hands over to the image's /docker-entrypoint.sh with the same
# arguments (jobmanager, taskmanager, flink ...). The images built by scripts/docker-images do
# the same in their own entrypoint (docker/images/flink/entrypoint.sh) and need none of this.
#
# It installs the project's flink-conf/config.yaml (mounted read-only at /opt/flinkss/conf) as
# the image's conf/config.yaml, changing only what must differ inside containers:
#   - the project binds everything to 127.0.0.1, which no other container could reach: the
#     JobManager, TaskManagers and REST server listen on 0.0.0.0 instead;
#   - clients in the containers find the REST API at the service name `jobmanager`;
#   - taskmanager.host is dropped (as the image drops it from Flink's default file), so each
#     TaskManager announces its own container address;
#   - s3.endpoint is the s3proxy service (FLINKSS_S3_ENDPOINT), the default checkpoint and
#     savepoint directories are on S3 (FLINKSS_CHECKPOINT_DIR, FLINKSS_SAVEPOINT_DIR);
#   - s3.access-key and s3.secret-key move to the environment (AWS_ACCESS_KEY_ID,
#     AWS_SECRET_ACCESS_KEY; values already set win): Flink logs the config it loads.
# It also adds the jars of docker/lib (Parquet and Hadoop, mounted at /opt/flinkss/lib) to the
# image's lib/: the job jar expects the cluster to provide them, the image does not.
# The image's entrypoint then sets jobmanager.rpc.address from JOB_MANAGER_RPC_ADDRESS, enables
# the plugins of ENABLE_BUILT_IN_PLUGINS, applies FLINK_PROPERTIES, and rewrites
# conf/config.yaml in place: the reason the project's file is copied and not mounted there.
set -euo pipefail

source_conf=/opt/flinkss/conf/config.yaml
target_conf="${FLINK_HOME:-/opt/flink}/conf/config.yaml"

if [[ ! -f "$source_conf" ]]; then
  echo "error: $source_conf is missing: mount the project's flink-conf/ folder there (see docker/docker-compose.hub.yml)." >&2
  exit 1
fi

extra_lib=/opt/flinkss/lib
if ! compgen -G "$extra_lib/*.jar" >/dev/null; then
  echo "error: no jars in $extra_lib: build them on the host first with" >&2
  echo "  mvn -q -f docker/lib/pom.xml dependency:copy-dependencies" >&2
  echo "(docker/README.md), then recreate this container." >&2
  exit 1
fi
cp "$extra_lib"/*.jar "${FLINK_HOME:-/opt/flink}/lib/"

flat_value() {
  sed -n "s/^${1//./\\.}[[:space:]]*:[[:space:]]*\(.*\)$/\1/p" "$source_conf" | tail -n 1 | sed 's/[[:space:]]#.*$//; s/[[:space:]]*$//'
}
if [[ -z "${AWS_ACCESS_KEY_ID:-}" || -z "${AWS_SECRET_ACCESS_KEY:-}" ]]; then
  AWS_ACCESS_KEY_ID="$(flat_value s3.access-key)"
  AWS_SECRET_ACCESS_KEY="$(flat_value s3.secret-key)"
  export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
fi
export AWS_JAVA_V1_DISABLE_DEPRECATION_ANNOUNCEMENT=true

sed -e '/^taskmanager\.host:/d' \
    -e 's|^jobmanager\.bind-host:.*|jobmanager.bind-host: 0.0.0.0|' \
    -e 's|^taskmanager\.bind-host:.*|taskmanager.bind-host: 0.0.0.0|' \
    -e 's|^rest\.bind-address:.*|rest.bind-address: 0.0.0.0|' \
    -e 's|^rest\.address:.*|rest.address: jobmanager|' \
    -e 's|^rest\.bind-port:.*|rest.bind-port: 8081|' \
    -e "s|^s3\.endpoint:.*|s3.endpoint: ${FLINKSS_S3_ENDPOINT:-http://s3proxy:9000}|" \
    -e "s|^execution\.checkpointing\.dir:.*|execution.checkpointing.dir: ${FLINKSS_CHECKPOINT_DIR:-s3://flinkss/cluster/checkpoints}|" \
    -e "s|^execution\.checkpointing\.savepoint-dir:.*|execution.checkpointing.savepoint-dir: ${FLINKSS_SAVEPOINT_DIR:-s3://flinkss/cluster/savepoints}|" \
    -e '/^s3\.access-key:/d' -e '/^s3\.secret-key:/d' \
    "$source_conf" >"$target_conf"

exec /docker-entrypoint.sh "$@"
