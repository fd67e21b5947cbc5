#!/usr/bin/env bash
# The S3Proxy image's entrypoint (docker/images/s3proxy): a properties file from the S3PROXY_*
# and JCLOUDS_* variables (readable by this user only: the credentials never reach a command
# line), one folder per bucket of S3PROXY_BUCKETS under the filesystem backend's base dir, then
# the server.
set -euo pipefail

basedir="${JCLOUDS_FILESYSTEM_BASEDIR:-/data}"
mkdir -p "$basedir"
for bucket in ${S3PROXY_BUCKETS:-}; do
  mkdir -p "$basedir/$bucket"
done

props=/tmp/s3proxy.properties
umask 077
{
  echo "s3proxy.endpoint=${S3PROXY_ENDPOINT:-http://0.0.0.0:9000}"
  echo "s3proxy.authorization=${S3PROXY_AUTHORIZATION:-aws-v2-or-v4}"
  echo "s3proxy.identity=${S3PROXY_IDENTITY:?}"
  echo "s3proxy.credential=${S3PROXY_CREDENTIAL:?}"
  [[ -z "${S3PROXY_VIRTUALHOST:-}" ]] || echo "s3proxy.virtual-host=$S3PROXY_VIRTUALHOST"
  echo "jclouds.provider=${JCLOUDS_PROVIDER:-filesystem}"
  echo "jclouds.filesystem.basedir=$basedir"
} >"$props"
umask 022

# shellcheck disable=SC2086  # a list of JVM flags
exec java ${S3PROXY_JAVA_OPTS:--Xmx256m -XX:+UseSerialGC} -Dlogback.configurationFile=/opt/s3proxy/logback.xml \
  -classpath "/opt/s3proxy/lib/*" org.gaul.s3proxy.Main --properties "$props"
