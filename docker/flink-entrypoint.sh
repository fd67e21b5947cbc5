#!/usr/bin/env bash
# Runs first in every Flink container of docker-compose.yml, then hands over to the official
# image's /docker-entrypoint.sh with the same arguments (jobmanager, taskmanager, flink ...).
#
# It installs the project's flink-conf/config.yaml (mounted read-only at /opt/flinkss/conf) as
# the image's conf/config.yaml, changing only what must differ inside containers:
#   - the project binds everything to 127.0.0.1, which no other container could reach: the
#     JobManager, TaskManagers and REST server listen on 0.0.0.0 instead;
#   - clients in the containers find the REST API at the service name `jobmanager`;
#   - taskmanager.host is dropped (as the image drops it from Flink's default file), so each
#     TaskManager announces its own container address;
#   - the default checkpoint and savepoint directories are the shared volumes.
# It also adds the jars of docker/lib (Parquet and Hadoop, mounted at /opt/flinkss/lib) to the
# image's lib/: the job jar expects the cluster to provide them, the image does not.
# The image's entrypoint then sets jobmanager.rpc.address from JOB_MANAGER_RPC_ADDRESS, the blob
# and query ports, and applies FLINK_PROPERTIES, rewriting conf/config.yaml in place: the reason
# the project's file is copied and not mounted at conf/config.yaml itself.
set -euo pipefail

source_conf=/opt/flinkss/conf/config.yaml
target_conf="${FLINK_HOME:-/opt/flink}/conf/config.yaml"

if [[ ! -f "$source_conf" ]]; then
  echo "error: $source_conf is missing: mount the project's flink-conf/ folder there (see docker/docker-compose.yml)." >&2
  exit 1
fi

extra_lib=/opt/flinkss/lib
if ! compgen -G "$extra_lib/*.jar" >/dev/null; then
  echo "error: no jars in $extra_lib: build them on the host first with" >&2
  echo "  mvn -q -f docker/lib/pom.xml dependency:copy-dependencies" >&2
  echo "(docker/README.md, step 1), then recreate this container." >&2
  exit 1
fi
cp "$extra_lib"/*.jar "${FLINK_HOME:-/opt/flink}/lib/"

sed -e '/^taskmanager\.host:/d' \
    -e 's|^jobmanager\.bind-host:.*|jobmanager.bind-host: 0.0.0.0|' \
    -e 's|^taskmanager\.bind-host:.*|taskmanager.bind-host: 0.0.0.0|' \
    -e 's|^rest\.bind-address:.*|rest.bind-address: 0.0.0.0|' \
    -e 's|^rest\.address:.*|rest.address: jobmanager|' \
    -e "s|^execution\.checkpointing\.dir:.*|execution.checkpointing.dir: ${FLINKSS_CHECKPOINT_DIR:-file:///checkpoints}|" \
    -e "s|^execution\.checkpointing\.savepoint-dir:.*|execution.checkpointing.savepoint-dir: ${FLINKSS_SAVEPOINT_DIR:-file:///savepoints}|" \
    "$source_conf" >"$target_conf"

exec /docker-entrypoint.sh "$@"
