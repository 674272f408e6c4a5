#!/bin/sh
# Run once by Patroni on the node that initialises the cluster; $1 connects as the superuser.
set -e
psql "$1" -v ON_ERROR_STOP=1 \
  -c "CREATE ROLE cybernetes LOGIN PASSWORD 'cybernetes'" \
  -c "CREATE DATABASE cybernetes OWNER cybernetes"
